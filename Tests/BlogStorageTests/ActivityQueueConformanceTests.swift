import BlogTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing
import BlogModel

/// The ActivityPub delivery queue, the same on every backend: activities
/// queued in the post paths' own commits (only for blogs with accepted
/// followers), fanned out once per inbox, claimed under a lease, settled
/// by the claim.
@Suite("BlogStorage conformance: the ActivityPub delivery queue")
struct ActivityQueueConformanceTests {
    private func kinds(_ store: any BlogStorage) throws -> [ActivityKind] {
        try store.queuedActivities(limit: 100).map(\.kind)
    }

    /// A user with accepted followers on two servers (three on one shared
    /// inbox) and one pending.
    private func followed(_ store: any BlogStorage, _ name: String) throws -> UserRecord {
        let user = try store.createUser(name: name, passwordHash: "h", at: t0)
        for index in 1...3 {
            _ = try store.addFollower(userID: user.id, actorID: "https://a.example/u/\(index)",
                                      inbox: "https://a.example/u/\(index)/inbox", sharedInbox: "https://a.example/inbox",
                                      followID: "f\(index)", accepted: true, at: t0)
        }
        _ = try store.addFollower(userID: user.id, actorID: "https://b.example/me", inbox: "https://b.example/me/inbox",
                                  sharedInbox: nil, followID: "fb", accepted: true, at: t0)
        _ = try store.addFollower(userID: user.id, actorID: "https://c.example/me", inbox: "https://c.example/me/inbox",
                                  sharedInbox: nil, followID: "fc", accepted: false, at: t0)
        return user
    }

    @Test(arguments: Backend.available) func onlyBlogsWithAcceptedFollowersQueue(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try followed(store, "alice")
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            #expect(try kinds(store).isEmpty, "off until turned on")
            store.queueActivities(true)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            _ = try store.addFollower(userID: bob.id, actorID: "https://c.example/x", inbox: "https://c.example/x/inbox",
                                      sharedInbox: nil, followID: "f", accepted: false, at: t0)
            _ = try store.addPost(userID: bob.id, title: "t", content: "c", at: t0)
            #expect(try kinds(store).isEmpty, "a pending follower is no follower yet")
            let post = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let queued = try #require(try store.queuedActivities(limit: 9).first)
            #expect(queued.userID == alice.id && queued.postID == post.id && queued.kind == .create)
            store.queueActivities(false)
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            #expect(try kinds(store) == [.create])
        }
    }

    @Test(arguments: Backend.available) func everyChangeOfAPostQueuesItsActivity(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueActivities(true)
            let alice = try followed(store, "alice")
            let post = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let edited = t0.addingTimeInterval(90.5)
            _ = try #require(try store.editPost(id: post.id, ofUserID: alice.id, title: "t", content: "d", weight: 1,
                                                at: edited))
            _ = try #require(try store.trashPost(id: post.id, ofUserID: alice.id, at: t0))
            _ = try #require(try store.restorePost(id: post.id, ofUserID: alice.id))
            _ = try #require(try store.removePost(id: post.id, ofUserID: nil, tombstone: true))
            let queued = try store.queuedActivities(limit: 9)
            // Trashed before its Create went anywhere: no Delete (the Create
            // waits out the trash, TrashedActivitiesConformanceTests), and a
            // restore sends nothing more.
            #expect(queued.map(\.kind) == [.create, .update, .delete])
            #expect(queued.allSatisfy { $0.postID == post.id && $0.userID == alice.id })
            #expect(queued[1].queuedAt == edited, "an Update's id carries the edit's time")

            // A post taken back (never shown) takes its activity and its
            // deliveries with it.
            let unshown = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let create = try #require(try store.queuedActivities(limit: 9).last)
            #expect(create.postID == unshown.id)
            let other = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            #expect(try store.fanOut(create, body: "{}", at: t0) == 2)
            _ = try store.removePost(id: unshown.id, ofUserID: nil, tombstone: false)
            #expect(try store.queuedActivities(limit: 9).map(\.postID) == [post.id, post.id, post.id, other.id])
            #expect(try store.queuedDeliveries(limit: 9).isEmpty)
        }
    }

    /// The activity is part of the post's own commit: a change that rolls
    /// back (a photo it cannot have, a suspended author) queues none.
    @Test(arguments: Backend.available) func aChangeThatRollsBackQueuesNothing(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueActivities(true)
            let alice = try followed(store, "alice")
            let missing = String(repeating: "ab", count: 16)
            #expect(throws: StorageError.unknownPhoto) {
                _ = try store.insertPost(userID: alice.id, title: "t", content: "c", weight: 1, place: nil,
                                         photos: [missing], at: t0, layout: PageLayout(pageSize: 50))
            }
            #expect(try kinds(store).isEmpty)
            let post = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            #expect(try kinds(store) == [.create])
            #expect(throws: StorageError.unknownPhoto) {
                _ = try store.editPost(id: post.id, ofUserID: alice.id,
                                       PostEdit(title: "t", content: "d", photos: [PhotoAttachment(name: missing, alt: "")]),
                                       weight: 1, photoWeight: { _ in 0 }, at: t0)
            }
            try store.setSuspended(userID: alice.id, true, at: t0)
            #expect(throws: StorageError.unknownUser) {
                _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            }
            #expect(try kinds(store) == [.create])
        }
    }

    @Test(arguments: Backend.available) func aFanOutMakesOneDeliveryPerInboxOnce(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueActivities(true)
            let alice = try followed(store, "alice")
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let activity = try #require(try store.queuedActivities(limit: 9).first)
            #expect(try store.fanOut(activity, body: #"{"type":"Create"}"#, at: t0) == 2)
            #expect(try store.fanOut(activity, body: #"{"type":"Create"}"#, at: t0) == 0, "once")
            let deliveries = try store.queuedDeliveries(limit: 9)
            #expect(deliveries.map(\.inbox).sorted() == ["https://a.example/inbox", "https://b.example/me/inbox"])
            #expect(deliveries.map(\.host).sorted() == ["a.example", "b.example"])
            #expect(deliveries.allSatisfy {
                $0.activityID == activity.id && $0.body == #"{"type":"Create"}"# && $0.attempts == 0 && $0.due == t0
                    && $0.createdAt == t0 && $0.userID == alice.id && $0.postID == activity.postID
            })
            #expect(try store.queuedActivities(limit: 9).isEmpty)

            // Nothing to send (its post is gone): taken off, nothing made.
            let post = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let second = try #require(try store.queuedActivities(limit: 9).first)
            #expect(second.postID == post.id)
            #expect(try store.fanOut(second, body: nil, at: t0) == 0)
            #expect(try store.deliveryCounts() == DeliveryCounts(queuedActivities: 0, queuedDeliveries: 2, delivered: 0,
                                                                 givenUp: 0))
        }
    }

    /// Fan-outs of one activity racing (two instances): one makes the
    /// deliveries, the others nothing.
    @Test(arguments: Backend.available) func racingFanOutsMakeNoDuplicates(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueActivities(true)
            let alice = try followed(store, "alice")
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let activity = try #require(try store.queuedActivities(limit: 9).first)
            let made = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                let count = (try? store.fanOut(activity, body: "{}", at: t0)) ?? 0
                made.withLock { $0 += count }
            }
            #expect(made.withLock { $0 } == 2)
            #expect(try store.queuedDeliveries(limit: 9).count == 2)
        }
    }

    @Test(arguments: Backend.available) func aClaimIsLeasedAndSettledByItsAttempt(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueActivities(true)
            let alice = try followed(store, "alice")
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            _ = try store.fanOut(try #require(try store.queuedActivities(limit: 9).first), body: "{}", at: t0)
            let claimed = try store.claimDeliveries(dueBy: t0, lease: 60, limit: 9)
            #expect(claimed.count == 2 && claimed.allSatisfy { $0.attempts == 1 && $0.due == t0.addingTimeInterval(60) })
            #expect(try store.claimDeliveries(dueBy: t0.addingTimeInterval(59), lease: 60, limit: 9).isEmpty, "leased")

            // The first worker died: its lease runs out, another claims.
            let again = try store.claimDeliveries(dueBy: t0.addingTimeInterval(60), lease: 60, limit: 9)
            #expect(again.map(\.id) == claimed.map(\.id) && again.allSatisfy { $0.attempts == 2 })
            // The dead worker's late results change nothing.
            try store.settleDeliveries([(claimed[0], .done), (claimed[1], .givenUp)])
            #expect(try store.queuedDeliveries(limit: 9).count == 2)

            let later = t0.addingTimeInterval(600)
            try store.settleDeliveries([(again[0], .done), (again[1], .retry(at: later))])
            #expect(try store.queuedDeliveries(limit: 9).map(\.id) == [again[1].id])
            #expect(try store.claimDeliveries(dueBy: later.addingTimeInterval(-1), lease: 60, limit: 9).isEmpty)
            let third = try #require(try store.claimDeliveries(dueBy: later, lease: 60, limit: 9).first)
            #expect(third.attempts == 3)
            try store.settleDeliveries([(third, .givenUp)])
            #expect(try store.deliveryCounts() == DeliveryCounts(queuedActivities: 0, queuedDeliveries: 0, delivered: 1,
                                                                 givenUp: 1))
        }
    }

    /// Claims racing on many threads (on PostgreSQL: many connections,
    /// as instances would) each get deliveries no other claim got.
    @Test(arguments: Backend.available) func concurrentClaimsNeverShareADelivery(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueActivities(true)
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            for index in 1...40 {
                _ = try store.addFollower(userID: alice.id, actorID: "https://h\(index).example/u",
                                          inbox: "https://h\(index).example/inbox", sharedInbox: nil, followID: "f\(index)",
                                          accepted: true, at: t0)
            }
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            #expect(try store.fanOut(try #require(try store.queuedActivities(limit: 9).first), body: "{}", at: t0) == 40)
            let claimed = Mutex<[Int64]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                while let batch = try? store.claimDeliveries(dueBy: t0, lease: 600, limit: 3), !batch.isEmpty {
                    claimed.withLock { $0 += batch.map(\.id) }
                }
            }
            let ids = claimed.withLock { $0 }
            #expect(ids.count == 40 && Set(ids).count == 40)
        }
    }

    /// The queue goes with its user.
    @Test(arguments: Backend.available) func aDeletedUserTakesItsQueueAlong(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueActivities(true)
            let alice = try followed(store, "alice")
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            _ = try store.fanOut(try #require(try store.queuedActivities(limit: 9).first), body: "{}", at: t0)
            _ = try store.storeActorKey(userID: alice.id, publicPEM: "p", privatePEM: "q", at: t0)
            _ = try store.block(userID: alice.id, .domain("z.example"), at: t0)
            try store.deleteUser(id: alice.id)
            #expect(try store.deliveryCounts() == DeliveryCounts(queuedActivities: 0, queuedDeliveries: 0, delivered: 0,
                                                                 givenUp: 0))
            #expect(try store.actorKey(ofUserID: alice.id) == nil && store.blocks(ofUserID: alice.id).isEmpty)
            #expect(try store.followerCount(ofUserID: alice.id, state: nil) == 0)
        }
    }
}
