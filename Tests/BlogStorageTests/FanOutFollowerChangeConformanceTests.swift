import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// A fan-out in chunks reads each chunk's followers in its own step, the
/// same on every backend: a follower removed or blocked while a long
/// fan-out runs gets nothing from the steps after; one that comes while
/// it runs gets its delivery when its inbox sorts past the point.
@Suite("BlogStorage conformance: followers changing during a fan-out")
struct FanOutFollowerChangeConformanceTests {
    /// Follower `index`'s actor id; its inbox (its own) is this plus "/inbox".
    private func actor(_ index: Int) -> String { "https://s\(index).example/me" }

    /// Alice's post queued for followers s0…s6 (inboxes in that order).
    private func queued(_ store: any BlogStorage) throws -> (UserRecord, QueuedActivity) {
        store.queueActivities(true)
        let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
        for index in 0..<7 { try follow(store, alice, actor(index)) }
        _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
        return (alice, try #require(try store.queuedActivities(limit: 9).first))
    }

    private func follow(_ store: any BlogStorage, _ user: UserRecord, _ actor: String) throws {
        _ = try store.addFollower(userID: user.id, actorID: actor, inbox: actor + "/inbox", sharedInbox: nil,
                                  followID: actor + "#follow", accepted: true, at: t0)
    }

    /// Steps of `rows` until the fan-out is done; the deliveries they made.
    private func finish(_ store: any BlogStorage, _ activity: QueuedActivity, rows: Int) throws -> Int {
        var made = 0, done = false
        while !done {
            let step = try store.fanOutStep(activity, body: "{}", rows: rows, at: t0)
            (made, done) = (made + step.made, step.done)
        }
        return made
    }

    /// The inboxes the activity's deliveries go to, in order.
    private func inboxes(_ store: any BlogStorage, _ activity: QueuedActivity) throws -> [String] {
        try store.queuedDeliveries(limit: 99).filter { $0.activityID == activity.id }.map(\.inbox).sorted()
    }

    @Test(arguments: Backend.available) func aFollowerRemovedOrBlockedBetweenStepsGetsNoMore(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let (alice, activity) = try queued(store)
            #expect(try store.fanOutStep(activity, body: "{}", rows: 2, at: t0) == FanOutStep(made: 2, done: false))

            // While the fan-out runs: one unfollows, one actor and one
            // domain are blocked; all three sort past the point.
            _ = try #require(try store.removeFollower(userID: alice.id, actorID: actor(2)))
            _ = try store.block(userID: alice.id, .actor(actor(4)), at: t0)
            _ = try store.block(userID: alice.id, .domain("s6.example"), at: t0)

            #expect(try finish(store, activity, rows: 2) == 2, "s3 and s5 only")
            #expect(try store.queuedActivities(limit: 9).isEmpty)
            #expect(try inboxes(store, activity) == [0, 1, 3, 5].map { actor($0) + "/inbox" })
        }
    }

    @Test(arguments: Backend.available) func aFollowerAddedPastThePointGetsOne(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let (alice, activity) = try queued(store)
            #expect(try store.fanOutStep(activity, body: "{}", rows: 3, at: t0) == FanOutStep(made: 3, done: false))

            // Two come while it runs: one sorts past the point (s9), one
            // before it (a0, which the fan-out has passed: it does not go back).
            try follow(store, alice, "https://s9.example/me")
            try follow(store, alice, "https://a0.example/me")

            #expect(try finish(store, activity, rows: 3) == 5, "s3…s6 and s9")
            #expect(try inboxes(store, activity) == (0..<7).map { actor($0) + "/inbox" } + ["https://s9.example/me/inbox"])
        }
    }

    /// A chunk that takes the last follower is the last step, even when
    /// it is full: done then, not one step later.
    @Test(arguments: Backend.available) func theStepThatTakesTheLastIsDone(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let (alice, activity) = try queued(store)
            _ = try #require(try store.removeFollower(userID: alice.id, actorID: actor(6)))
            #expect(try store.fanOutStep(activity, body: "{}", rows: 3, at: t0) == FanOutStep(made: 3, done: false))
            #expect(try store.fanOutStep(activity, body: "{}", rows: 3, at: t0) == FanOutStep(made: 3, done: true))
            #expect(try store.queuedActivities(limit: 9).isEmpty)
        }
    }

    /// Every follower gone while it runs: the next step makes nothing
    /// and ends the fan-out.
    @Test(arguments: Backend.available) func allFollowersGoneEndsTheFanOut(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let (alice, activity) = try queued(store)
            #expect(try store.fanOutStep(activity, body: "{}", rows: 3, at: t0).made == 3)
            for index in 0..<7 { _ = try store.removeFollower(userID: alice.id, actorID: actor(index)) }
            #expect(try store.fanOutStep(activity, body: "{}", rows: 3, at: t0) == FanOutStep(made: 0, done: true))
            #expect(try store.queuedActivities(limit: 9).isEmpty)
            #expect(try inboxes(store, activity).count == 3)
        }
    }
}
