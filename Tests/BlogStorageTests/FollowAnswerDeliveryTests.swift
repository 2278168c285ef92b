@testable import BlogCore
import BlogPages
import BlogTestSupport
import Foundation
import Logging
import Synchronization
import Testing
import BlogModel

/// The `Accept` of a follow through the delivery worker, on every
/// backend: queued by the service with the follower, sent signed to the
/// follower's own inbox, retried after the worker's backoff while that
/// inbox is down, across a restart (the store closed and opened again, a
/// new worker), and delivered once it answers.
@Suite("ActivityPub delivery: answers to follows")
struct FollowAnswerDeliveryTests {
    func offPool(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withTaskExecutorPreference(BlockingExecutor.shared) { try work() }
    }

    final class Wakes: Sendable {
        let count = Atomic<Int>(0)
    }

    @Test(arguments: Backend.available) func anAcceptOutlivesADownInboxAndARestart(_ backend: Backend) async throws {
        try await offPool {
            let database = try ActivityDeliveryTests.Database(backend)
            defer { database.cleanUp() }
            let folder = try makeTemporaryFolder()
            defer { removeTemporaryFolder(folder) }
            // Down twice (503, then no better), then up.
            let inbox = try ActivityDeliveryTests.InboxHost(statuses: [503, 503])
            defer { inbox.server.stop() }
            let clock = TestClock(t0)
            let bob = "https://m.test/users/bob"
            do {
                let store = try database.open()
                defer { try? store.close() }
                let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
                _ = try store.storeActorKey(userID: alice.id, publicPEM: "alice-public", privatePEM: "alice-private", at: t0)
                let quiet = Logger(label: "test.service", factory: { _ in SwiftLogNoOpLogHandler() })
                // The service and the worker on the test's clock: the
                // answer's due time and its giving up count from it.
                let service = try BlogService(store: store, pages: PublicFolder(folder: folder),
                                              settings: .init(scrypt: .testing, baseURL: ActivityDeliveryTests.base),
                                              logger: quiet, now: clock.closure)
                let wakes = Wakes()
                service.activitiesQueued { wakes.count.add(1, ordering: .relaxed) }
                let kept = try service.receiveFollow(userID: alice.id, user: "alice", actor: bob,
                                                     inbox: inbox.inbox("/users/bob/inbox"), sharedInbox: inbox.inbox("/inbox"),
                                                     followID: "https://m.test/follows/1", accept: true)
                #expect(kept.state == .accepted && wakes.count.load(ordering: .relaxed) == 1, "the worker is woken")

                let worker = ActivityDeliveryTests.worker(store, clock: clock)
                #expect(try worker.fanOutDue() == 0, "no post activity: the answer is a delivery already")
                #expect(try worker.sendDue() == 1)
                #expect(inbox.posts.count == 1 && worker.count(.retry) == 1)
            }
            // blogd restarts: a new store and worker on the same database.
            let store = try database.open()
            defer { try? store.close() }
            let worker = ActivityDeliveryTests.worker(store, clock: clock)
            let waiting = try #require(try store.queuedDeliveries(limit: 9).first)
            #expect(waiting.kind == .accept && waiting.attempts == 1)
            #expect(try worker.sendDue() == 0, "not before its backoff")
            clock.advance(by: worker.settings.retryDelay(afterAttempt: 1))
            #expect(try worker.sendDue() == 1)
            #expect(inbox.posts.count == 2, "still down")
            clock.advance(by: worker.settings.retryDelay(afterAttempt: 2))
            #expect(try worker.sendDue() == 1)
            #expect(inbox.posts.count == 3 && worker.count(.delivered) == 1)
            #expect(try store.queuedDeliveries(limit: 9).isEmpty && store.deliveryCounts().delivered == 1)

            let posts = inbox.posts
            #expect(posts.allSatisfy { $0.path == "/users/bob/inbox" }, "the follower's own inbox")
            #expect(posts.allSatisfy { $0.body == posts[0].body }, "the same bytes each try")
            let request = try #require(posts.last)
            #expect(request.headers["signature"]?.contains("keyId=\"\(ActivityDeliveryTests.base)ap/alice#main-key\"") == true)
            let accept = ActivityDeliveryTests.json(request)
            #expect(accept["type"] as? String == "Accept" && accept["actor"] as? String == ActivityDeliveryTests.base + "ap/alice")
            let follow = try #require(accept["object"] as? [String: Any])
            #expect(follow["id"] as? String == "https://m.test/follows/1" && follow["type"] as? String == "Follow")
            #expect(follow["actor"] as? String == bob && follow["object"] as? String == ActivityDeliveryTests.base + "ap/alice")
        }
    }
}
