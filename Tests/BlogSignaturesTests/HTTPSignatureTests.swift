import BlogSignatures
import Foundation
import Testing

/// Our signer and our verifier, and every way a hostile or broken
/// request must be refused.
@Suite struct HTTPSignatureTests {
    let verifier = HTTPSignatureVerifier()
    let key = TestKeys.alice.publicKey

    @Test func signsAPostAsMastodonRequires() throws {
        let headers = try HTTPSignatureSigner.sign(method: "POST", url: "https://remote.example:8443/users/bob/inbox?x=1",
                                                   body: TestKeys.body, keyID: TestKeys.keyID,
                                                   privateKey: TestKeys.alice.privateKey, now: TestKeys.now)
        let names = headers.map(\.0)
        #expect(names == ["Host", "Date", "Digest", "Signature"])
        #expect(headers[0].1 == "remote.example:8443")
        #expect(headers[1].1 == "Fri, 15 Jan 2027 08:00:00 GMT")
        #expect(headers[2].1 == DigestHeader.make(for: TestKeys.body))
        let signature = try SignatureHeader.parse(headers[3].1)
        #expect(signature.algorithm == "rsa-sha256")
        #expect(signature.keyID == TestKeys.keyID)
        #expect(signature.headers == ["(request-target)", "host", "date", "digest"])
        #expect(signature.signature.count == 256)
        let request = SignedRequest(method: "POST", path: "/users/bob/inbox", query: "x=1", headers: headers, body: TestKeys.body)
        _ = try verifier.verify(request, key: key, now: TestKeys.now)
    }

    @Test func signsAGetWithoutDigest() throws {
        let headers = try HTTPSignatureSigner.sign(method: "GET", url: "https://remote.example/users/bob", body: nil,
                                                   keyID: TestKeys.keyID, privateKey: TestKeys.alice.privateKey, now: TestKeys.now)
        #expect(headers.map(\.0) == ["Host", "Date", "Signature"])
        #expect(headers[0].1 == "remote.example")
        #expect(try SignatureHeader.parse(headers[2].1).headers == ["(request-target)", "host", "date"])
        _ = try verifier.verify(SignedRequest(method: "GET", path: "/users/bob", headers: headers), key: key, now: TestKeys.now)
    }

    @Test func acceptsHS2019AndADateInsideTheWindow() throws {
        let request = try TestKeys.signedPost()
        let hs2019 = try SignatureHeader.parse(request.header("signature")!)
        var renamed = hs2019
        renamed.algorithm = "hs2019"
        try verifier.check(request, renamed, now: TestKeys.now)
        try verifier.verify(request, renamed, key: key)
        _ = try verifier.verify(request, key: key, now: TestKeys.now.addingTimeInterval(299))
        _ = try verifier.verify(request, key: key, now: TestKeys.now.addingTimeInterval(-299))
    }

    @Test func refusesASignatureByAnotherKey() throws {
        let request = try TestKeys.signedPost(key: TestKeys.mallory)
        #expect(throws: SignatureError.badSignature) { try verifier.verify(request, key: key, now: TestKeys.now) }
    }

    @Test func refusesAChangedBodyAsADigestMismatch() throws {
        var request = try TestKeys.signedPost()
        request.body[request.body.count - 2] ^= 1
        #expect(throws: SignatureError.digestMismatch) { try verifier.verify(request, key: key, now: TestKeys.now) }
        // A Digest made anew for the changed body no longer matches the signature.
        let redigested = request.setting("Digest", DigestHeader.make(for: request.body))
        #expect(throws: SignatureError.badSignature) { try verifier.verify(redigested, key: key, now: TestKeys.now) }
    }

    @Test func refusesADateOutsideTheWindow() throws {
        let request = try TestKeys.signedPost()
        #expect(throws: SignatureError.dateOutOfWindow) {
            try verifier.verify(request, key: key, now: TestKeys.now.addingTimeInterval(301))
        }
        #expect(throws: SignatureError.dateOutOfWindow) {
            try verifier.verify(request, key: key, now: TestKeys.now.addingTimeInterval(-86_400 * 365))
        }
        #expect(throws: SignatureError.badDate("yesterday")) {
            try verifier.verify(request.setting("Date", "yesterday"), key: key, now: TestKeys.now)
        }
        let narrow = HTTPSignatureVerifier(window: 30)
        #expect(throws: SignatureError.dateOutOfWindow) {
            try narrow.verify(request, key: key, now: TestKeys.now.addingTimeInterval(31))
        }
    }

    @Test func refusesAReplayToAnotherPathOrHost() throws {
        let request = try TestKeys.signedPost()
        var moved = request
        moved.path = "/users/carol/inbox"
        #expect(throws: SignatureError.badSignature) { try verifier.verify(moved, key: key, now: TestKeys.now) }
        var queried = request
        queried.query = "a=1"
        #expect(throws: SignatureError.badSignature) { try verifier.verify(queried, key: key, now: TestKeys.now) }
        #expect(throws: SignatureError.badSignature) {
            try verifier.verify(request.setting("Host", "other.example"), key: key, now: TestKeys.now)
        }
        var method = request
        method.method = "PUT"
        #expect(throws: SignatureError.badSignature) { try verifier.verify(method, key: key, now: TestKeys.now) }
    }

    /// Signs `request` over `headers` with alice's key, the way another
    /// server might (we only make the standard set ourselves).
    func signed(_ request: SignedRequest, over headers: [String], algorithm: String? = "rsa-sha256",
                created: Int? = nil, expires: Int? = nil) throws -> SignedRequest {
        let text = try SigningString.make(headers: headers, request: request, created: created, expires: expires)
        let raw = try TestKeys.alice.privateKey.signature(for: Array(text.utf8), padding: .insecurePKCS1v1_5)
        let header = SignatureHeader(keyID: TestKeys.keyID, algorithm: algorithm, headers: headers,
                                     signature: Array(raw.rawRepresentation), created: created, expires: expires)
        return request.setting("Signature", header.value)
    }

    @Test func refusesASignatureThatLeavesOutARequiredHeader() throws {
        let post = try TestKeys.signedPost()
        // Valid signatures, but over too little: a body without its digest signed.
        let noDigest = try signed(post, over: ["(request-target)", "host", "date"])
        #expect(throws: SignatureError.headerNotSigned("digest")) { try verifier.verify(noDigest, key: key, now: TestKeys.now) }
        let noTarget = try signed(post, over: ["host", "date", "digest"])
        #expect(throws: SignatureError.headerNotSigned("(request-target)")) {
            try verifier.verify(noTarget, key: key, now: TestKeys.now)
        }
        let noHost = try signed(post, over: ["(request-target)", "date", "digest"])
        #expect(throws: SignatureError.headerNotSigned("host")) { try verifier.verify(noHost, key: key, now: TestKeys.now) }
        let noDate = try signed(post, over: ["(request-target)", "host", "digest"])
        #expect(throws: SignatureError.headerNotSigned("date")) { try verifier.verify(noDate, key: key, now: TestKeys.now) }
        // The Digest header gone altogether from a POST with a body.
        let stripped = try signed(post.setting("Digest", nil), over: ["(request-target)", "host", "date"])
        #expect(throws: SignatureError.headerNotSigned("digest")) { try verifier.verify(stripped, key: key, now: TestKeys.now) }
        // Listed but absent.
        let absent = try signed(post, over: ["(request-target)", "host", "date", "digest"]).setting("Date", nil)
        #expect(throws: SignatureError.missingHeader("date")) { try verifier.verify(absent, key: key, now: TestKeys.now) }
    }

    @Test func takesCreatedInPlaceOfDateAndHonoursExpires() throws {
        let post = try TestKeys.signedPost().setting("Date", nil)
        let created = Int(TestKeys.now.timeIntervalSince1970)
        let headers = ["(request-target)", "(created)", "(expires)", "host", "digest"]
        let request = try signed(post, over: headers, algorithm: "hs2019", created: created, expires: created + 60)
        _ = try verifier.verify(request, key: key, now: TestKeys.now)
        #expect(throws: SignatureError.expired) { try verifier.verify(request, key: key, now: TestKeys.now.addingTimeInterval(61)) }
        let stale = try signed(post, over: headers, created: created - 3600, expires: created + 60)
        #expect(throws: SignatureError.dateOutOfWindow) { try verifier.verify(stale, key: key, now: TestKeys.now) }
    }

    @Test func refusesOtherAlgorithms() throws {
        let post = try TestKeys.signedPost()
        for algorithm in ["hmac-sha256", "rsa-sha1", "ecdsa-sha256", "ed25519"] {
            let request = try signed(post, over: ["(request-target)", "host", "date", "digest"], algorithm: algorithm)
            #expect(throws: SignatureError.unsupportedAlgorithm(algorithm)) {
                try verifier.verify(request, key: key, now: TestKeys.now)
            }
        }
    }

    @Test func refusesARequestWithoutSignatureOrWithGarbage() throws {
        let post = try TestKeys.signedPost()
        #expect(throws: SignatureError.noSignature) { try verifier.verify(post.setting("Signature", nil), key: key, now: TestKeys.now) }
        let garbage = post.setting("Signature", #"keyId="k",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="AAAA""#)
        #expect(throws: SignatureError.badSignature) { try verifier.verify(garbage, key: key, now: TestKeys.now) }
    }
}
