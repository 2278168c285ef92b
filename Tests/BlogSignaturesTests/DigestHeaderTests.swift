import BlogSignatures
import Testing

@Suite struct DigestHeaderTests {
    let body = Array("moo".utf8)

    @Test func makesSHA256InBase64() {
        // The value bovine's own doctest gives for b"moo".
        #expect(DigestHeader.make(for: body) == "SHA-256=R9+ukoir89XSJSq/sL1qyWYmN9ZG5t+dXSdLwzbierw=")
    }

    @Test func checksInAnyCaseAndAmongOthers() throws {
        try DigestHeader.check("sha-256=R9+ukoir89XSJSq/sL1qyWYmN9ZG5t+dXSdLwzbierw=", body: body)
        try DigestHeader.check("MD5=abc, SHA-256=R9+ukoir89XSJSq/sL1qyWYmN9ZG5t+dXSdLwzbierw=", body: body)
    }

    @Test func refusesAWrongOrMissingSHA256() {
        #expect(throws: SignatureError.digestMismatch) {
            try DigestHeader.check(DigestHeader.make(for: Array("moo!".utf8)), body: body)
        }
        // One matching SHA-256 does not excuse another that does not.
        #expect(throws: SignatureError.digestMismatch) {
            try DigestHeader.check("SHA-256=R9+ukoir89XSJSq/sL1qyWYmN9ZG5t+dXSdLwzbierw=,SHA-256=\(DigestHeader.make(for: []).dropFirst(8))", body: body)
        }
        #expect(throws: SignatureError.unsupportedDigest("MD5=abc")) { try DigestHeader.check("MD5=abc", body: body) }
        #expect(throws: SignatureError.unsupportedDigest("SHA-256=not base64!")) {
            try DigestHeader.check("SHA-256=not base64!", body: body)
        }
        #expect(throws: SignatureError.unsupportedDigest("")) { try DigestHeader.check("", body: body) }
    }
}
