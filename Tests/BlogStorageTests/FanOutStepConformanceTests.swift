import BlogSQLite
import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// The fan-out in chunks, the same on every backend: each step writes the
/// next chunk of deliveries and the point it reached in one transaction;
/// a fan-out stopped midway (a crash between two steps) goes on from its
/// point, so every inbox gets one delivery, even one whose delivery of an
/// earlier chunk was sent and settled (gone from the table) meanwhile.
@Suite("BlogStorage conformance: the fan-out in chunks")
struct FanOutStepConformanceTests {
    /// Alice's post queued for seven followers, each with an inbox of its own.
    private func queued(_ store: any BlogStorage) throws -> (QueuedActivity, [DeliveryTarget]) {
        store.queueActivities(true)
        let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
        for index in 0..<7 {
            let actor = "https://s\(index).example/me"
            _ = try store.addFollower(userID: alice.id, actorID: actor, inbox: actor + "/inbox", sharedInbox: nil,
                                      followID: actor + "#follow", accepted: true, at: t0)
        }
        _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
        let activity = try #require(try store.queuedActivities(limit: 9).first)
        return (activity, try store.deliveryTargets(ofUserID: alice.id))
    }

    /// Claims what is due and settles it delivered: the rows go.
    private func deliverAll(_ store: any BlogStorage) throws -> [String] {
        let claimed = try store.claimDeliveries(dueBy: t0, lease: 60, limit: 64)
        try store.settleDeliveries(claimed.map { ($0, .done) })
        return claimed.map(\.inbox)
    }

    @Test(arguments: Backend.available) func aFanOutStoppedMidwayGoesOnFromItsPoint(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let (activity, targets) = try queued(store)
            #expect(targets.count == 7)
            #expect(try store.fanOutStep(activity, body: "{}", rows: 3, at: t0)
                    == FanOutStep(made: 3, done: false))
            #expect(try store.queuedActivities(limit: 9) == [activity], "still queued, with its point")
            // The first chunk is sent and settled before the fan-out goes on.
            #expect(try deliverAll(store) == targets.prefix(3).map(\.inbox))

            // The next fan-out (after a restart) goes on from the point.
            #expect(try store.fanOutStep(activity, body: "{}", rows: 3, at: t0)
                    == FanOutStep(made: 3, done: false))
            #expect(try store.fanOutStep(activity, body: "{}", rows: 3, at: t0)
                    == FanOutStep(made: 1, done: true))
            #expect(try store.queuedActivities(limit: 9).isEmpty)
            #expect(try deliverAll(store) == targets.dropFirst(3).map(\.inbox), "each of the rest once, none again")
            #expect(try store.fanOutStep(activity, body: "{}", rows: 3, at: t0)
                    == FanOutStep(made: 0, done: true), "done: nothing more")
            #expect(try store.fanOut(activity, body: "{}", at: t0) == 0)
            #expect(try store.deliveryCounts().delivered == 7)
        }
    }

    /// A whole fan-out of an activity stopped midway takes only the rest.
    @Test(arguments: Backend.available) func aWholeFanOutAfterAStepTakesOnlyTheRest(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let (activity, targets) = try queued(store)
            #expect(try store.fanOutStep(activity, body: "{}", rows: 2, at: t0).made == 2)
            #expect(try deliverAll(store).count == 2)
            #expect(try store.fanOut(activity, body: "{}", at: t0) == 5)
            #expect(try store.queuedActivities(limit: 9).isEmpty)
            #expect(Set(try deliverAll(store)) == Set(targets.dropFirst(2).map(\.inbox)))
        }
    }

    /// A real restart: the SQLite file closed after one step and opened
    /// again (its migrations run again, changing nothing); the fan-out
    /// goes on from its point.
    @Test func aRestartedStoreGoesOnFromThePoint() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fanout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("blog.sqlite").path
        let first = try SQLiteStore(path: path)
        let (activity, targets) = try queued(first)
        #expect(try first.fanOutStep(activity, body: "{}", rows: 4, at: t0).made == 4)
        try first.close()

        let second = try SQLiteStore(path: path)
        defer { try? second.close() }
        var made = 0, done = false
        while !done {
            let step = try second.fanOutStep(activity, body: "{}", rows: 2, at: t0)
            (made, done) = (made + step.made, step.done)
        }
        #expect(made == 3)
        #expect(Set(try deliverAll(second)) == Set(targets.map(\.inbox)), "seven deliveries, one an inbox")
    }
}
