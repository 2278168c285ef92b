import BlogPostgres
import BlogTestSupport
import Foundation
import Logging
import Synchronization
import Testing
import BlogModel

/// Several blogd instances on one PostgreSQL database fan out the same
/// activity: two `PostgresStore`s (two clients, two pools) stand for two
/// processes, each stepping through the fan-out on a thread of its own,
/// while a third sends and settles what they make (so a delivery made
/// twice would not hide behind the unique index: its first row is gone).
@Suite("The fan-out on two PostgreSQL instances", .enabled(if: PostgresCluster.enabled))
struct FanOutInstancesTests {
    private static func open(_ url: String) throws -> PostgresStore {
        let quiet = Logger(label: "test.fanout", factory: { _ in SwiftLogNoOpLogHandler() })
        return try PostgresStore(location: PostgresLocation(url: url, environment: [:]), logger: quiet)
    }

    /// What one instance's steps did.
    private struct Steps: Sendable {
        var made = 0
        var full = 0
        var failure: String?
    }

    @Test func twoInstancesFanningOutOneActivityMakeEachDeliveryOnce() throws {
        let url = try PostgresCluster.shared().makeDatabase()
        let first = try Self.open(url), second = try Self.open(url), sender = try Self.open(url)
        defer { [first, second, sender].forEach { try? $0.close() } }
        let followers = 1_000, rows = 50
        // Both instances read the activity before either starts.
        let activity = try alicesPost(first, followers: (0..<followers).map { "https://h\($0 % 37).example/u\($0)" })
        #expect(try second.queuedActivities(limit: 9) == [activity])

        // Each round both instances start a step together (a rendezvous
        // of two semaphores), so every round they contend for the
        // activity's row: one steps, the other waits for its commit.
        let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let stepped = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        let results = Mutex<[Steps]>([Steps(), Steps()])
        let running = Atomic<Int>(2)
        for (index, store) in [first, second].enumerated() {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                var steps = Steps(), done = false
                while !done {
                    arrived[index].signal()
                    arrived[1 - index].wait()
                    do {
                        let step = try store.fanOutStep(activity, body: "{}", rows: rows, at: t0)
                        steps.made += step.made
                        steps.full += step.made == rows ? 1 : 0
                        done = step.done
                    } catch {
                        (steps.failure, done) = ("\(error)", true)
                    }
                    stepped.signal()
                }
                // The other may be a round behind: its last step (which
                // finds the activity gone) must not wait for this one.
                arrived[index].signal()
                results.withLock { $0[index] = steps }
                running.subtract(1, ordering: .releasing)
                stepped.signal()
            }
        }

        // The sender: after each step, sends and settles all that is due.
        let delivered = Mutex<[String]>([]), senderFailure = Mutex<String?>(nil)
        finished.enter()
        Thread.detachNewThread {
            defer { finished.leave() }
            func drain() throws {
                while true {
                    let claimed = try sender.claimDeliveries(dueBy: t0, lease: 600, limit: 64)
                    if claimed.isEmpty { return }
                    try sender.settleDeliveries(claimed.map { ($0, .done) })
                    delivered.withLock { $0 += claimed.map(\.inbox) }
                }
            }
            do {
                var last = false
                while !last {
                    stepped.wait()
                    last = running.load(ordering: .acquiring) == 0
                    try drain()
                }
            } catch {
                senderFailure.withLock { $0 = "\(error)" }
            }
        }
        finished.wait()

        let steps = results.withLock { $0 }
        #expect(steps.allSatisfy { $0.made > 0 }, "both instances made deliveries: \(steps.map(\.made))")
        #expect(steps.compactMap(\.failure).isEmpty)
        #expect(senderFailure.withLock { $0 } == nil)
        #expect(steps.map(\.made).reduce(0, +) == followers, "each delivery made once: \(steps.map(\.made))")
        #expect(steps.map(\.full).reduce(0, +) == followers / rows, "chunks of 50, none made twice")
        let inboxes = delivered.withLock { $0 }
        #expect(inboxes.count == followers, "sent once each")
        #expect(Set(inboxes) == Set(try first.deliveryTargets(ofUserID: activity.userID).map(\.inbox)))
        #expect(try second.deliveryCounts() == DeliveryCounts(queuedActivities: 0, queuedDeliveries: 0,
                                                              delivered: followers, givenUp: 0))
    }
}
