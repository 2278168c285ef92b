import BlogInboxFarm
import BlogSQLite
import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// `/metrics` of the real binary shows the ActivityPub delivery queue's
/// depth, read from the database when asked: nothing waiting at first,
/// then the delivery to a follower whose server never answers.
@Suite(.serialized)
struct ActivityQueueMetricsTests {
    @Test func theQueueDepthIsOnMetrics() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-apqueue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("blog.sqlite").path
        let farm = try InboxFarm(hosts: 1, behaviour: { _ in .silent })
        defer { farm.stop() }
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0", "--metrics", "0",
                                       "--db", database, "--public", folder.appendingPathComponent("public").path],
                                      environment: ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1",
                                                    "BLOGD_OUTGOING_ALLOW_PRIVATE": "true"])
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        let metrics = try #require(server.stderr.firstMatch(of: /metrics on 127\.0\.0\.1:(\d+)/).flatMap { Int($0.output.1) })
        func samples() throws -> MetricLines { MetricLines(try httpRequest(port: metrics, path: "/metrics").body) }

        let first = try samples()
        #expect(first.value("blogd_activity_queue_activities") == 0)
        #expect(first.value("blogd_activity_queue_deliveries") == 0)
        let body = try httpRequest(port: metrics, path: "/metrics").body
        #expect(body.contains("# TYPE blogd_activity_queue_deliveries gauge"))
        #expect(body.contains("# HELP blogd_activity_queue_deliveries Deliveries to inboxes waiting"))
        #expect(first.value("blogd_activity_queue_held_back_total") == 0)
        #expect(body.contains("# TYPE blogd_activity_queue_held_back_total counter"))

        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("login:alice:pw[E];", port: port) == "log:OK[E];")
        // A follower, as the inbox stores an accepted Follow, on a server that never answers.
        do {
            let store = try SQLiteStore(path: database, create: false)
            defer { try? store.close() }
            let alice = try #require(try store.user(named: "alice"))
            // Its key, as a first fetch of its actor would make it.
            let pair = try ActorKeyPair.generate()
            _ = try store.storeActorKey(userID: alice.id, publicPEM: pair.publicKeyPEM, privatePEM: pair.privateKeyPEM, at: Date())
            let host = farm.hosts[0]
            _ = try store.addFollower(userID: alice.id, actorID: host.actor("bob"), inbox: host.inbox("bob"),
                                      sharedInbox: host.sharedInbox, followID: host.actor("bob") + "#follow", accepted: true,
                                      at: Date())
        }
        #expect(try exchange("newpost:alice:Hello:First post[E];", port: port) == "post:OK[E];")
        // Fanned out (no activity left), and its one delivery waiting: sent
        // and unanswered, then due again after its backoff.
        #expect(farm.wait(timeout: 120) { $0.received == 1 })
        #expect(waitUntil(timeout: 120) {
            let now = try? samples()
            return now?.value("blogd_activity_queue_activities") == 0 && now?.value("blogd_activity_queue_deliveries") == 1
        })
        #expect(server.stop() == 0)
    }
}
