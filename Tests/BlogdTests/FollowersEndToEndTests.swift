import BlogSignatures
import BlogTestSupport
import Foundation
import Synchronization
import Testing

/// The real binary with its web client on, followed from a stub fediverse
/// server on loopback (actors with a real RSA key, signed Follows sent
/// with curl): the `Accept` of a follow accepted while the follower's
/// inbox is down is delivered once it is back, across a restart of
/// blogd; and the admin's follower and block commands, run while `blogd
/// serve` runs on the same database, answer the followers' servers
/// through the running server's delivery worker.
@Suite(.serialized)
struct FollowersEndToEndTests {
    static let key = try! ActorKeyPair.generate()
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_BASE_URL": "https://blog.example/",
                       "BLOGD_REGISTRATION": "closed", "BLOGD_OUTGOING_ALLOW_PRIVATE": "true"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-followers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    /// `--db` and `--public`: the SQLite file in the folder, or a PostgreSQL database.
    func data(_ database: String?) -> [String] {
        ["--db", database ?? folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path]
    }

    func admin(_ arguments: [String], on database: String? = nil) throws -> (status: Int32, out: String, err: String) {
        try runBlogd(arguments + data(database), environment: environment)
    }

    /// A fediverse server: `/users/NAME` is an actor (one key for all),
    /// its inbox answers with `inboxStatus` (503: down).
    final class Fediverse: Sendable {
        /// What the inboxes answer.
        final class Inboxes: Sendable {
            let status = Atomic<Int>(503)
            /// Whether a `Block` POSTed is answered only on `releaseBlocks()`
            /// (or after five minutes): its send stays under way meanwhile.
            let holdsBlocks = Atomic<Bool>(false)
            let released = DispatchSemaphore(value: 0)
        }

        let server: HTTPStubServer
        let inboxes = Inboxes()
        func setInboxStatus(_ status: Int) { inboxes.status.store(status, ordering: .relaxed) }
        func holdBlocks() { inboxes.holdsBlocks.store(true, ordering: .relaxed) }
        func releaseBlocks() {
            inboxes.holdsBlocks.store(false, ordering: .relaxed)
            inboxes.released.signal()
        }

        init() throws {
            let inboxes = self.inboxes
            let box = Mutex<String>("")
            server = try HTTPStubServer { request in
                let actor = box.withLock { $0 } + request.path
                if request.method == "POST" {
                    if inboxes.holdsBlocks.load(ordering: .relaxed), String(decoding: request.body, as: UTF8.self).contains("\"Block\"") {
                        _ = inboxes.released.wait(timeout: .now() + 300)
                    }
                    return .init(status: inboxes.status.load(ordering: .relaxed))
                }
                let document: [String: Any] = [
                    "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
                    "id": actor, "type": "Person", "inbox": actor + "/inbox",
                    "publicKey": ["id": actor + "#main-key", "owner": actor, "publicKeyPem": FollowersEndToEndTests.key.publicKeyPEM],
                ]
                let body = try! JSONSerialization.data(withJSONObject: document)
                return .init(status: 200, headers: [("Content-Type", "application/activity+json")], body: Array(body))
            }
            box.withLock { $0 = "http://127.0.0.1:\(server.port)" }
        }

        func actor(_ name: String) -> String { server.url("/users/\(name)") }

        /// The activities POSTed to `name`'s inbox, parsed.
        func received(_ name: String) -> [[String: Any]] {
            server.requests.filter { $0.method == "POST" && $0.path == "/users/\(name)/inbox" }.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any]
            }
        }
    }

    /// `name` follows alice: a signed POST to her inbox; the status.
    func follow(_ fediverse: Fediverse, _ name: String, http: Int) throws -> Int {
        let actor = fediverse.actor(name)
        let body = try JSONSerialization.data(withJSONObject: [
            "@context": "https://www.w3.org/ns/activitystreams", "id": actor + "/follows/1", "type": "Follow",
            "actor": actor, "object": "https://blog.example/ap/alice",
        ])
        let url = "http://127.0.0.1:\(http)/ap/alice/inbox"
        let headers = try HTTPSignatureSigner.sign(method: "POST", url: url, body: Array(body), keyID: actor + "#main-key",
                                                   privateKey: Self.key.privateKey, now: Date())
        let file = folder.appendingPathComponent("follow-\(name).json")
        try body.write(to: file)
        let arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                         "-H", "Content-Type: application/activity+json", "--data-binary", "@" + file.path]
            + headers.flatMap { ["-H", "\($0.0): \($0.1)"] } + [url]
        return Int(try tool("curl", arguments).output) ?? 0
    }

    func serve(on database: String? = nil) throws -> BlogdProcess {
        try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0"] + data(database), environment: environment)
    }

    /// Waits for `condition`, a look a second: what it waits for is the
    /// delivery worker's retry (a minute after the failure) or its poll
    /// (every 30 s), on the real clock.
    func eventually(_ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(600)
        while Date() < end {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 1)
        }
        return condition()
    }

    @Test func anAcceptWaitsForADownInboxAcrossARestart() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        if curlIsMissing() { return }
        let fediverse = try Fediverse()
        defer { fediverse.server.stop() }
        var server = try serve()
        defer { _ = server.stop() }
        var http = try server.waitForHTTPPort()
        #expect(try runBlogd(["adduser", "alice"] + data(nil), environment: environment, input: "pw\n").status == 0)

        #expect(try follow(fediverse, "bob", http: http) == 202)
        // Tried at once, and the inbox is down.
        #expect(eventually { fediverse.received("bob").count == 1 })
        let listed = try admin(["followers", "alice"])
        #expect(listed.status == 0 && listed.out.hasPrefix("accepted\t\(fediverse.actor("bob"))\t127.0.0.1\t"), "\(listed)")
        #expect(server.stop() == 0)

        // Back up while blogd is down; blogd restarts and sends it again.
        fediverse.setInboxStatus(202)
        server = try serve()
        http = try server.waitForHTTPPort()
        #expect(eventually { fediverse.received("bob").count == 2 })
        let accept = try #require(fediverse.received("bob").last)
        #expect(accept["type"] as? String == "Accept" && accept["actor"] as? String == "https://blog.example/ap/alice")
        #expect((accept["object"] as? [String: Any])?["id"] as? String == fediverse.actor("bob") + "/follows/1")
        let signed = try #require(fediverse.server.requests.last { $0.method == "POST" })
        #expect(signed.headers["signature"]?.contains("keyId=\"https://blog.example/ap/alice#main-key\"") == true)
        #expect(server.stop() == 0)
        #expect(fediverse.received("bob").count == 2, "sent once it was taken")
    }

    @Test func theAdminModeratesFollowersWhileTheServerRuns() throws {
        try moderation(on: nil)
    }

    @Test(.enabled(if: PostgresCluster.enabled)) func theAdminModeratesFollowersOnPostgreSQL() throws {
        try moderation(on: try PostgresCluster.shared().makeDatabase())
    }

    func moderation(on database: String?) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        if curlIsMissing() { return }
        let fediverse = try Fediverse()
        fediverse.setInboxStatus(202)
        defer { fediverse.server.stop() }
        let server = try serve(on: database)
        defer { _ = server.stop() }
        let http = try server.waitForHTTPPort()
        func admin(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            try self.admin(arguments, on: database)
        }
        #expect(try runBlogd(["adduser", "alice"] + data(database), environment: environment, input: "pw\n").status == 0)

        #expect(try admin(["follower", "approval", "alice"]).out == "off\n")
        #expect(try admin(["follower", "approval", "alice", "on"]).out == "on\n")
        let actor = try get(http, "/ap/alice")
        #expect(actor.contains("\"manuallyApprovesFollowers\":true"), "\(actor)")
        #expect(try follow(fediverse, "carol", http: http) == 202)
        #expect(try follow(fediverse, "dave", http: http) == 202)
        let pending = try admin(["followers", "alice", "--pending"])
        #expect(pending.out.split(separator: "\n").map { $0.split(separator: "\t").prefix(2).joined(separator: " ") }
                == ["pending \(fediverse.actor("dave"))", "pending \(fediverse.actor("carol"))"], "\(pending)")
        #expect(pending.err.contains("0 accepted, 2 pending"))
        #expect(fediverse.received("carol").isEmpty, "no Accept while it waits")

        let approved = try admin(["follower", "approve", "alice", fediverse.actor("carol")])
        #expect(approved.status == 0 && approved.out.contains("approved follower"), "\(approved)")
        let refused = try admin(["follower", "refuse", "alice", fediverse.actor("dave")])
        #expect(refused.status == 0, "\(refused)")
        // The running server's worker sends them at its next look.
        #expect(eventually { fediverse.received("carol").count == 1 && fediverse.received("dave").count == 1 })
        #expect(fediverse.received("carol").first?["type"] as? String == "Accept")
        #expect(fediverse.received("dave").first?["type"] as? String == "Reject")
        #expect(try admin(["followers", "alice"]).out.hasPrefix("accepted\t\(fediverse.actor("carol"))\t"))

        let removed = try admin(["follower", "remove", "alice", fediverse.actor("carol")])
        #expect(removed.status == 0, "\(removed)")
        #expect(eventually { fediverse.received("carol").count == 2 })
        #expect(fediverse.received("carol").last?["type"] as? String == "Reject")

        // Blocks: the inbox refuses what they cover.
        let blocked = try admin(["block", "alice", "domain", "127.0.0.1"])
        #expect(blocked.status == 0 && blocked.out.contains("blocked domain 127.0.0.1"), "\(blocked)")
        #expect(try follow(fediverse, "erin", http: http) == 403)
        #expect(try admin(["blocks", "alice"]).out.hasPrefix("domain\t127.0.0.1\t"))
        #expect(try admin(["unblock", "alice", "domain", "127.0.0.1"]).status == 0)
        #expect(try admin(["blocks", "alice"]).out.isEmpty)
        #expect(try admin(["block", "alice", "actor", fediverse.actor("erin")]).status == 0)
        #expect(try follow(fediverse, "erin", http: http) == 403)
        #expect(try follow(fediverse, "frank", http: http) == 202)

        // Hostile input: one line on stderr, exit 1, nothing changed.
        for (arguments, message) in [
            (["block", "alice", "domain", "https://social.example"], "not a URL"),
            (["block", "alice", "domain", "bad_name.example"], "not a domain"),
            (["block", "alice", "person", "x"], "block an actor or a domain"),
            (["block", "alice", "actor", "javascript:alert(1)"], "not an actor's URL"),
            (["block", "alice", "actor", "https://" + String(repeating: "a", count: 2100)], "at most 2048 bytes"),
            (["unblock", "alice", "domain", "never.example"], "no such block: never.example"),
            (["follower", "approve", "alice", "https://nobody.example/u"], "no such follower"),
            (["follower", "refuse", "alice", fediverse.actor("frank") + "x"], "no such follower"),
            (["follower", "approval", "alice", "maybe"], "give on or off"),
            (["followers", "nobody"], "no such user: nobody"),
            (["block", "nobody", "domain", "x.example"], "no such user: nobody"),
        ] {
            let result = try admin(arguments)
            #expect(result.status == 1 && result.err.contains(message), "\(arguments): \(result)")
        }
        #expect(try admin(["followers", "alice", "--limit", "0"]).status != 0)
        #expect(try admin(["blocks", "alice"]).out.split(separator: "\n").count == 1)
        #expect(server.stop() == 0)
    }

    func get(_ port: Int, _ path: String) throws -> String {
        try tool("curl", ["-s", "-H", "Accept: application/activity+json", "http://127.0.0.1:\(port)\(path)"]).output
    }
}
