import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// The real binary sends a `Block` to a follower its blog blocks, and the
/// `Undo` of it on unblocking, through its delivery queue: a block made
/// by the admin while blogd is down is delivered, signed with the blog's
/// key, once blogd is back (a restart loses nothing); unblocked while
/// that Block is being sent, its Undo follows as soon as the send is
/// over; a domain block sends none. A stub fediverse server on loopback,
/// on SQLite and on PostgreSQL.
@Suite(.serialized)
struct BlockNoticeEndToEndTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_BASE_URL": "https://blog.example/",
                       "BLOGD_REGISTRATION": "closed", "BLOGD_OUTGOING_ALLOW_PRIVATE": "true"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-block-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    func data(_ database: String?) -> [String] {
        ["--db", database ?? folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path]
    }

    func serve(on database: String?) throws -> (BlogdProcess, Int) {
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0"] + data(database),
                                      environment: environment)
        return (server, try server.waitForHTTPPort())
    }

    /// Waits for `condition`, a look a second: the delivery worker's poll
    /// (every 30 s) finds what an admin command queued, on the real clock.
    func eventually(_ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(600)
        while Date() < end {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 1)
        }
        return condition()
    }

    @Test func aBlockedFollowerIsSentABlockAndItsUndo() throws {
        try blocking(on: nil)
    }

    @Test(.enabled(if: PostgresCluster.enabled)) func aBlockedFollowerIsSentABlockAndItsUndoOnPostgreSQL() throws {
        try blocking(on: try PostgresCluster.shared().makeDatabase())
    }

    func blocking(on database: String?) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        if curlIsMissing() { return }
        let fediverse = try FollowersEndToEndTests.Fediverse()
        fediverse.setInboxStatus(202)
        defer { fediverse.server.stop() }
        func admin(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            try runBlogd(arguments + data(database), environment: environment)
        }
        var (server, http) = try serve(on: database)
        defer { _ = server.stop() }
        #expect(try runBlogd(["adduser", "alice"] + data(database), environment: environment, input: "pw\n").status == 0)
        let bob = fediverse.actor("bob")
        let follow: [String: Any] = ["id": bob + "/follows/1", "type": "Follow", "object": "https://blog.example/ap/alice"]
        #expect(try postSigned(follow, by: "bob", of: fediverse, to: "/ap/alice/inbox", http: http, folder: folder) == 202)
        #expect(eventually { fediverse.received("bob").count == 1 }, "its Accept")
        let actor = try tool("curl", ["-s", "-H", "Accept: application/activity+json", "http://127.0.0.1:\(http)/ap/alice"]).output
        let json = try #require(try JSONSerialization.jsonObject(with: Data(actor.utf8)) as? [String: Any])
        let pem = try #require((json["publicKey"] as? [String: Any])?["publicKeyPem"] as? String)
        #expect(server.stop() == 0)

        // Blocked while blogd is down: queued in the database, sent when it
        // is back. Unblocked while that Block is being sent (its answer
        // held): the Undo waits for the send to end, not for its lease.
        let blocked = try admin(["block", "alice", "actor", bob])
        #expect(blocked.status == 0, "\(blocked)")
        fediverse.holdBlocks()
        (server, http) = try serve(on: database)
        #expect(eventually { fediverse.received("bob").contains { $0["type"] as? String == "Block" } }, "blogd: \(server.stderr)")
        #expect(try admin(["unblock", "alice", "actor", bob]).status == 0)
        fediverse.releaseBlocks()
        #expect(eventually { Set(fediverse.received("bob").compactMap { $0["type"] as? String }).isSuperset(of: ["Block", "Reject"]) },
                "blogd: \(server.stderr)")
        let block = try #require(fediverse.received("bob").first { $0["type"] as? String == "Block" })
        let blockID = try #require(block["id"] as? String)
        #expect(blockID.hasPrefix("https://blog.example/ap/alice#block-"))
        #expect(block["actor"] as? String == "https://blog.example/ap/alice" && block["object"] as? String == bob)
        let sent = try #require(fediverse.server.requests.first {
            $0.method == "POST" && $0.path == "/users/bob/inbox" && String(decoding: $0.body, as: UTF8.self).contains("\"Block\"")
        })
        let request = SignedRequest(method: "POST", path: sent.path, headers: sent.headers.map { ($0.key, $0.value) },
                                    body: sent.body)
        let signature = try HTTPSignatureVerifier().verify(request, key: try ActorKeyPair.publicKey(pem: pem), now: Date())
        #expect(signature.keyID == "https://blog.example/ap/alice#main-key")
        #expect(signature.headers.contains("digest"))

        // The Undo names the Block sent.
        #expect(eventually { fediverse.received("bob").contains { $0["type"] as? String == "Undo" } })
        let undo = try #require(fediverse.received("bob").first { $0["type"] as? String == "Undo" })
        let undone = try #require(undo["object"] as? [String: Any])
        #expect(undone["id"] as? String == blockID && undone["type"] as? String == "Block" && undone["object"] as? String == bob)

        // A domain block sends its Rejects, and no Block: looked at while
        // blogd runs, once a later delivery (the Accept of a follow after
        // the domain is unblocked) has arrived. A Block queued with the
        // Reject would have been claimed in the same look, long before.
        func count(_ type: String) -> Int { fediverse.received("bob").filter { $0["type"] as? String == type }.count }
        #expect(try postSigned(follow, by: "bob", of: fediverse, to: "/ap/alice/inbox", http: http, folder: folder) == 202)
        #expect(eventually { count("Accept") == 2 })
        #expect(try admin(["block", "alice", "domain", "127.0.0.1"]).status == 0)
        #expect(eventually { count("Reject") == 2 })
        #expect(try admin(["unblock", "alice", "domain", "127.0.0.1"]).status == 0)
        let again: [String: Any] = ["id": bob + "/follows/2", "type": "Follow", "object": "https://blog.example/ap/alice"]
        #expect(try postSigned(again, by: "bob", of: fediverse, to: "/ap/alice/inbox", http: http, folder: folder) == 202)
        #expect(eventually { count("Accept") == 3 }, "blogd: \(server.stderr)")
        #expect(count("Block") == 1, "the actor block's only")
        #expect(count("Undo") == 1, "a domain unblock sends nothing either")
        #expect(server.stop() == 0)
    }
}
