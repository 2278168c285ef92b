import BlogSignatures
import Testing

@Suite struct SigningStringTests {
    let request = SignedRequest(method: "POST", path: "/foo", query: "param=value&pet=dog", headers: [
        ("Host", "example.com"), ("Date", "Sun, 05 Jan 2014 21:31:40 GMT"), ("Content-Type", "application/json"),
        ("X-Example", " one "), ("x-example", "two"), ("Content-Length", "18"),
    ])

    @Test func buildsTheDraftsExample() throws {
        // draft-cavage-12 C.2's covered headers, in its order.
        let text = try SigningString.make(headers: ["(request-target)", "host", "date", "content-type", "content-length"],
                                          request: request)
        #expect(text == """
            (request-target): post /foo?param=value&pet=dog
            host: example.com
            date: Sun, 05 Jan 2014 21:31:40 GMT
            content-type: application/json
            content-length: 18
            """)
    }

    @Test func joinsRepeatsAndTakesPseudoHeaders() throws {
        let text = try SigningString.make(headers: ["x-example", "(created)", "(expires)"], request: request,
                                          created: 1_402_170_695, expires: 1_402_170_699)
        #expect(text == "x-example: one, two\n(created): 1402170695\n(expires): 1402170699")
    }

    @Test func refusesAListedHeaderTheRequestLacks() {
        #expect(throws: SignatureError.missingHeader("digest")) {
            try SigningString.make(headers: ["host", "digest"], request: request)
        }
        #expect(throws: SignatureError.missingHeader("(created)")) {
            try SigningString.make(headers: ["(created)"], request: request)
        }
    }

    @Test func refusesALineBreakInAValue() {
        var forged = request
        forged.headers.append(("X-Forged", "a\nhost: evil.example"))
        #expect(throws: SignatureError.self) { try SigningString.make(headers: ["x-forged"], request: forged) }
    }
}
