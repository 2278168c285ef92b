import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// The real binary's inbox takes an RFC 9421 signed Follow
/// (`Signature-Input`, `Signature`, `Content-Digest`): its `@target-uri`
/// read with the base URL's scheme (`https`, though the socket is plain
/// HTTP, as behind a TLS proxy), its `keyid` fetched as a draft-cavage
/// key id is. A body changed after signing is refused.
@Suite(.serialized)
struct MessageSignatureInboxTests {
    static let bob: ActorKeyPair = try! ActorKeyPair.generate()

    @Test func anRFC9421SignedFollowIsTaken() throws {
        try SignedInboxServer.run(bob: Self.bob) { blog in
            let follow = blog.follow()
            let headers = try MessageSignatureSigner.sign(method: "POST", url: "https://blog.example/ap/alice/inbox",
                                                          body: Array(follow.utf8), keyID: blog.actor + "#main-key",
                                                          privateKey: Self.bob.privateKey, now: Date())
            let changed = follow.replacingOccurrences(of: "follows/1", with: "follows/2")
            #expect(try blog.post(changed, headers: headers, to: "/ap/alice/inbox") == "401", "blogd: \(blog.server.stderr)")
            #expect(blog.remote.requests.isEmpty, "a changed body costs no key fetch")
            #expect(try blog.post(follow, headers: headers, to: "/ap/alice/inbox") == "202", "blogd: \(blog.server.stderr)")
            let get = try #require(blog.remote.requests.first { $0.method == "GET" && $0.path == "/users/bob" })
            #expect(get.headers["signature"]?.contains("keyId=\"https://blog.example/ap/alice#main-key\"") == true)
        }
    }
}
