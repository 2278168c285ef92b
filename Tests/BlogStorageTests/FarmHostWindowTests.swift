import BlogCore
import BlogInboxFarm
import BlogModel
import BlogTestSupport
import Foundation
import Testing

/// The delivery worker's window against a hostile host: hundreds of a
/// blog's followers have their own inboxes on one server that reads each
/// delivery and never answers, and they come first in claim order. The
/// window holds a few of that host's deliveries, not 256, so the others'
/// are claimed and delivered while the silent host's requests are open.
@Suite("ActivityPub delivery: one host cannot fill the window")
struct FarmHostWindowTests {
    @Test func aSilentHostWithManyInboxesLeavesRoomForTheOthers() async throws {
        try await withTaskExecutorPreference(BlockingExecutor.shared) {
            let (store, cleanUp) = try Backend.sqlite.open()
            defer {
                try? store.close()
                cleanUp()
            }
            let clock = TestClock(t0)
            // Host 0 (127.1.0.1) sorts before host 1: its inboxes are claimed first.
            let farm = try FarmDeliveryTests.farm(hosts: 2, clock: clock) { $0 == 0 ? .silent : .accept }
            defer { farm.stop() }
            let silent = FarmDeliveryTests.followers(on: [farm.hosts[0]], per: 300) { _ in false }
            let good = FarmDeliveryTests.followers(on: [farm.hosts[1]], per: 20) { _ in false }
            let alice = try FarmDeliveryTests.alice(store, followers: silent + good)
            let worker = FarmDeliveryTests.worker(store, clock: clock)
            #expect(worker.settings.heldPerHost == 4 && worker.settings.perHost == 2)
            worker.start()
            defer { worker.stop() }
            _ = try store.addPost(userID: alice.id, title: "t", content: "to everyone", at: t0)
            worker.wake()

            #expect(farm.wait(host: 1, timeout: 600) { $0.accepted == 20 }, "the good host's twenty arrive")
            #expect(waitUntil(timeout: 600) { worker.count(.delivered) == 20 })
            #expect(farm.record(host: 0).accepted == 0 && farm.record(host: 0).received <= 2,
                    "the silent host sees its per-host limit of sends at once, never answered")
            let queued = try store.queuedDeliveries(limit: 1000)
            #expect(queued.count == 300 && queued.allSatisfy { $0.host == farm.hosts[0].address })
            #expect(queued.filter { $0.attempts > 0 }.count == 4, "the window holds four of the silent host's")
        }
    }
}
