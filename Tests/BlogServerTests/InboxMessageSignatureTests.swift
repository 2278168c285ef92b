import BlogCore
import BlogFetch
import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// An RFC 9421 signed POST through the inbox's `InboxVerifier`: its
/// `keyid` fetched, kept and bounded by the same `KeyFetcher` as a
/// draft-cavage one's, at a real key server on loopback.
@Suite struct InboxMessageSignatureTests {
    typealias Fixture = KeyServerFixture

    static func signed(_ f: Fixture, keyID: String, key: ActorKeyPair = Fixture.bob) throws -> SignedRequest {
        let headers = try MessageSignatureSigner.sign(method: "POST", url: "https://blog.test/ap/alice/inbox",
                                                      body: Fixture.body, keyID: keyID, privateKey: key.privateKey,
                                                      now: f.clock.now)
        return SignedRequest(method: "POST", path: "/ap/alice/inbox", headers: headers, body: Fixture.body)
    }

    @Test func itsKeyIsFetchedOnceAndSharedWithDraftCavage() async throws {
        let f = try await Fixture.start()
        defer { Task { try? await f.close() } }
        f.serve("bob", key: Fixture.bob)
        let signer: VerifiedSigner = try await f.verify(Self.signed(f, keyID: f.keyID("bob"))).get()
        #expect(signer.actorID == f.actorURL("bob"))
        _ = try await f.verify(Self.signed(f, keyID: f.keyID("bob"))).get()
        _ = try await f.verify(f.request(keyID: f.keyID("bob"))).get()
        #expect(f.fetches("bob") == 1)
        // A changed body costs no fetch and no RSA check.
        var tampered = try Self.signed(f, keyID: f.keyID("carol"))
        tampered.body[3] ^= 0x20
        let outcome = await f.verify(tampered)
        #expect(outcome.refusal == .signature(.digestMismatch))
        #expect(f.keys.fetchCount == 1)
        // The wrong key: refused.
        let wrong = await f.verify(try Self.signed(f, keyID: f.keyID("bob"), key: Fixture.rotated))
        #expect(wrong.refusal == .signature(.badSignature))
    }

    @Test func aFloodOfUnknownKeyIDsIsHeldToTheHostsBurst() async throws {
        let f = try await Fixture.start()
        defer { Task { try? await f.close() } }
        let template = try Self.signed(f, keyID: f.keyID("template"))
        for index in 0..<200 {
            var request = template
            request.headers = template.headers.map { header -> (String, String) in
                guard header.0 == "Signature-Input" else { return header }
                return (header.0, header.1.replacingOccurrences(of: f.keyID("template"), with: f.keyID("u\(index)")))
            }
            _ = await f.verify(request, from: "203.0.113.\(index % 100 + 1)")
        }
        #expect(f.keys.fetchCount == 20)
        #expect(f.server.seen.count == 20)
    }
}
