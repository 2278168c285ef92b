import BlogSignatures
import Foundation
import Testing

/// RFC 9421 signatures (`Signature-Input` + `Signature`): ours signed and
/// verified, and every refusal the inbox relies on: a changed body, a
/// wrong digest, a stale `created`, a component not covered, parameters
/// we do not take, a malformed field.
@Suite struct MessageSignatureTests {
    static let inbox = "https://blog.example/ap/alice/inbox"

    static func signed(body: [UInt8] = TestKeys.body, key: ActorKeyPair = TestKeys.alice, at time: Date = TestKeys.now,
                       algorithm: String = "rsa-v1_5-sha256") throws -> SignedRequest {
        let headers = try MessageSignatureSigner.sign(method: "POST", url: inbox, body: body, keyID: TestKeys.keyID,
                                                      privateKey: key.privateKey, now: time, algorithm: algorithm)
        return SignedRequest(method: "POST", path: "/ap/alice/inbox", headers: headers, body: body)
    }

    static func check(_ request: SignedRequest, key: ActorKeyPair = TestKeys.alice) throws -> MessageSignature {
        try MessageSignatureVerifier().verify(request, key: key.publicKey, now: TestKeys.now)
    }

    @Test(arguments: ["rsa-v1_5-sha256", "rsa-pss-sha512"])
    func weSignWeVerify(_ algorithm: String) throws {
        let request = try Self.signed(algorithm: algorithm)
        let signature = try Self.check(request)
        #expect(signature.keyID == TestKeys.keyID)
        #expect(signature.components == ["@method", "@target-uri", "content-digest"])
        #expect(signature.algorithm == algorithm)
        #expect(throws: SignatureError.badSignature) { _ = try Self.check(request, key: TestKeys.mallory) }
    }

    @Test func theSignatureBaseIsRFC9421s() throws {
        let request = try Self.signed()
        let signature = try MessageSignature.find(in: request.headers)
        let base = try SignatureBase.make(components: signature.components, parameters: signature.parameters, request: request)
        let lines: [String] = base.components(separatedBy: "\n")
        #expect(lines.count == 4)
        #expect(lines[0] == "\"@method\": POST")
        #expect(lines[1] == "\"@target-uri\": https://blog.example/ap/alice/inbox")
        #expect(lines[2] == "\"content-digest\": " + ContentDigestHeader.make(for: TestKeys.body))
        let params = "(\"@method\" \"@target-uri\" \"content-digest\");created=1800000000;keyid=\"\(TestKeys.keyID)\";alg=\"rsa-v1_5-sha256\""
        #expect(lines[3] == "\"@signature-params\": " + params)
    }

    @Test func aChangedBodyIsRefused() throws {
        var request = try Self.signed()
        request.body[10] ^= 0x20
        #expect(throws: SignatureError.digestMismatch) { _ = try Self.check(request) }
    }

    @Test func aDigestOfAnotherBodyIsRefused() throws {
        let other: [UInt8] = Array("{\"type\":\"Undo\"}".utf8)
        let request = try Self.signed().setting("Content-Digest", ContentDigestHeader.make(for: other))
        #expect(throws: SignatureError.digestMismatch) { _ = try Self.check(request) }
        let md5 = try Self.signed().setting("Content-Digest", "md5=:AAAAAAAAAAAAAAAAAAAAAA==:")
        #expect(throws: SignatureError.unsupportedDigest("md5=:AAAAAAAAAAAAAAAAAAAAAA==:")) { _ = try Self.check(md5) }
        let none = try Self.signed().setting("Content-Digest", nil)
        #expect(throws: SignatureError.missingHeader("content-digest")) { _ = try Self.check(none) }
    }

    @Test func aStaleOrFutureSignatureIsRefused() throws {
        let stale = try Self.signed(at: TestKeys.now.addingTimeInterval(-301))
        #expect(throws: SignatureError.dateOutOfWindow) { _ = try Self.check(stale) }
        let future = try Self.signed(at: TestKeys.now.addingTimeInterval(301))
        #expect(throws: SignatureError.dateOutOfWindow) { _ = try Self.check(future) }
        let edge = try Self.signed(at: TestKeys.now.addingTimeInterval(-300))
        _ = try Self.check(edge)
    }

    /// A Signature-Input with its own component list, signed by us, checked.
    static func covering(_ components: [String], created: String = "created=1800000000") throws -> SignedRequest {
        let request = try signed()
        let list = components.map { "\"\($0)\"" }.joined(separator: " ")
        return request.setting("Signature-Input", "sig1=(\(list));\(created);keyid=\"\(TestKeys.keyID)\"")
    }

    @Test func aMissingComponentIsRefused() throws {
        #expect(throws: SignatureError.headerNotSigned("content-digest")) {
            _ = try Self.check(try Self.covering(["@method", "@target-uri"]))
        }
        #expect(throws: SignatureError.headerNotSigned("@method")) {
            _ = try Self.check(try Self.covering(["@target-uri", "content-digest"]))
        }
        #expect(throws: SignatureError.headerNotSigned("@target-uri")) {
            _ = try Self.check(try Self.covering(["@method", "@path", "content-digest"]))
        }
        #expect(throws: SignatureError.missingParameter("created")) {
            _ = try Self.check(try Self.covering(["@method", "@target-uri", "content-digest"], created: "nonce=\"n\""))
        }
        // Covered but absent: refused, not signed as empty.
        #expect(throws: SignatureError.missingHeader("date")) {
            _ = try Self.check(try Self.covering(["@method", "@target-uri", "content-digest", "date"]))
        }
    }

    @Test func whatWeDoNotTakeIsRefused() throws {
        let request = try Self.signed()
        let withParameter = request.setting("Signature-Input", "sig1=(\"@method\" \"@target-uri\" \"content-digest\";sf);created=1800000000;keyid=\"k\"")
        #expect(throws: SignatureError.malformed("the component content-digest has parameters")) { _ = try Self.check(withParameter) }
        let hmac = request.setting("Signature-Input", "sig1=(\"@method\" \"@target-uri\" \"content-digest\");created=1800000000;keyid=\"k\";alg=\"hmac-sha256\"")
        #expect(throws: SignatureError.unsupportedAlgorithm("hmac-sha256")) { _ = try Self.check(hmac) }
        let query = request.setting("Signature-Input", "sig1=(\"@method\" \"@target-uri\" \"content-digest\" \"@status\");created=1800000000;keyid=\"k\"")
        #expect(throws: SignatureError.malformed("the component @status is not supported")) { _ = try Self.check(query) }
        let noKey = request.setting("Signature-Input", "sig1=(\"@method\");created=1800000000")
        #expect(throws: SignatureError.missingParameter("keyid")) { _ = try Self.check(noKey) }
        let otherLabel = request.setting("Signature", "sig2=:AAAA:")
        #expect(throws: SignatureError.self) { _ = try Self.check(otherLabel) }
        let long = request.setting("Signature-Input", "sig1=(\"@method\");keyid=\"" + String(repeating: "k", count: 9000) + "\"")
        #expect(throws: SignatureError.self) { _ = try Self.check(long) }
    }

    @Test func structuredFieldsParseStrictly() throws {
        let entries = try StructuredFields.dictionary(#"a=1, b=("x" "y");p=?0, c;q=:AQI=:, d=tok/en"#)
        #expect(entries.count == 4)
        #expect(entries[0].member == .item(.init(value: .integer(1), parameters: [])))
        let inner: [StructuredFields.Item] = [.init(value: .string("x"), parameters: []), .init(value: .string("y"), parameters: [])]
        #expect(entries[1].member == .innerList(inner, parameters: [.init(key: "p", value: .bool(false))]))
        #expect(entries[2].member == .item(.init(value: .bool(true), parameters: [.init(key: "q", value: .bytes([1, 2]))])))
        #expect(entries[3].member == .item(.init(value: .token("tok/en"), parameters: [])))
        // 8 KiB of tiny members, items or parameters: refused past the bounds, not read quadratically.
        let members = (0..<65).map { "k\($0)" }.joined(separator: ",")
        #expect(throws: SignatureError.malformed("more than 64 members")) { _ = try StructuredFields.dictionary(members) }
        let items = "a=(" + (0..<65).map { _ in "1" }.joined(separator: " ") + ")"
        #expect(throws: SignatureError.malformed("more than 64 items in an inner list")) { _ = try StructuredFields.dictionary(items) }
        let parameters = "a=1" + (0..<33).map { ";p\($0)" }.joined()
        #expect(throws: SignatureError.malformed("more than 32 parameters")) { _ = try StructuredFields.dictionary(parameters) }
        for bad in ["A=1", "a=1,", "a=(\"x\"", "a=\"open", "a=1.5", "a=:!!:", "a=?2", "a=1 b=2", "a=\"\u{1}\""] {
            #expect(throws: SignatureError.self, "\(bad)") { _ = try StructuredFields.dictionary(bad) }
        }
    }
}
