import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// A post's activities across the trash, the same on every backend: a
/// restore takes back the `Delete` not yet sent (a follower never told
/// keeps the post), and a `Create` sent to no one waits out the trash
/// (no `Delete` for it) and goes out on restore.
@Suite("BlogStorage conformance: a post's activities across the trash")
struct TrashedActivitiesConformanceTests {
    private func kinds(_ store: any BlogStorage) throws -> [ActivityKind] {
        try store.queuedActivities(limit: 100).map(\.kind)
    }

    /// A user with two accepted followers, each its own inbox.
    private func followed(_ store: any BlogStorage) throws -> UserRecord {
        let user = try store.createUser(name: "alice", passwordHash: "h", at: t0)
        for host in ["b.example", "d.example"] {
            _ = try store.addFollower(userID: user.id, actorID: "https://\(host)/me", inbox: "https://\(host)/me/inbox",
                                      sharedInbox: nil, followID: "f-\(host)", accepted: true, at: t0)
        }
        return user
    }

    @Test(arguments: Backend.available) func aRestoreTakesBackTheDeleteNotYetSent(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueActivities(true)
            let alice = try followed(store)
            let post = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let create = try #require(try store.queuedActivities(limit: 9).first)
            #expect(try store.fanOut(create, body: "create", at: t0) == 2)

            // Told of it: the trash queues its Delete; a restore at once
            // takes it back, and leaves the Create's own deliveries.
            let trashed = t0.addingTimeInterval(60)
            _ = try #require(try store.trashPost(id: post.id, ofUserID: alice.id, at: trashed))
            #expect(try kinds(store) == [.delete])
            _ = try #require(try store.restorePost(id: post.id, ofUserID: alice.id))
            #expect(try kinds(store).isEmpty, "the Delete not fanned out goes with the restore")
            #expect(try store.queuedDeliveries(limit: 9).map(\.body) == ["create", "create"])
            let sent = try store.claimDeliveries(dueBy: t0, lease: 60, limit: 9)
            try store.settleDeliveries(sent.map { (delivery: $0, settlement: DeliverySettlement.done) })

            // Trashed again, its Delete fanned out and tried at one inbox:
            // that one may have arrived (its follower keeps the tombstone);
            // the other, never tried, goes with the restore.
            let again = t0.addingTimeInterval(120)
            _ = try #require(try store.trashPost(id: post.id, ofUserID: alice.id, at: again))
            let delete = try #require(try store.queuedActivities(limit: 9).first)
            #expect(delete.kind == .delete)
            #expect(try store.fanOut(delete, body: "delete", at: again) == 2)
            let tried = try #require(try store.claimDeliveries(dueBy: again, lease: 60, limit: 1).first)
            _ = try #require(try store.restorePost(id: post.id, ofUserID: alice.id))
            let left = try store.queuedDeliveries(limit: 9)
            #expect(left.map(\.id) == [tried.id] && left.map(\.body) == ["delete"])
            #expect(try kinds(store).isEmpty)
        }
    }

    @Test(arguments: Backend.available) func aCreateSentToNoOneWaitsOutTheTrash(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueActivities(true)
            let alice = try followed(store)
            let post = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let create = try #require(try store.queuedActivities(limit: 9).first)
            _ = try #require(try store.trashPost(id: post.id, ofUserID: alice.id, at: t0))
            #expect(try kinds(store).isEmpty, "the Create waits, and no Delete tells anyone of a post none saw")

            // A worker that read the Create before the trash leaves it be.
            #expect(try store.fanOut(create, body: nil, at: t0) == 0)
            let step = try store.fanOutStep(create, body: "create", rows: 10, at: t0)
            #expect(step.made == 0 && step.done)
            #expect(try store.queuedDeliveries(limit: 9).isEmpty)

            // Restored: the Create goes out, as if it had never been trashed.
            _ = try #require(try store.restorePost(id: post.id, ofUserID: alice.id))
            #expect(try store.queuedActivities(limit: 9).map(\.id) == [create.id])
            #expect(try store.fanOut(create, body: "create", at: t0) == 2)

            // Purged instead: the fan-out drops it, its post gone for good.
            let gone = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let goneCreate = try #require(try store.queuedActivities(limit: 9).last)
            _ = try #require(try store.trashPost(id: gone.id, ofUserID: alice.id, at: t0))
            #expect(try kinds(store).isEmpty)
            #expect(try store.purgeTrashedPost(id: gone.id) == alice.id)
            #expect(try store.queuedActivities(limit: 9).map(\.id) == [goneCreate.id])
            #expect(try store.fanOut(goneCreate, body: nil, at: t0) == 0)
            #expect(try kinds(store).isEmpty)
        }
    }
}
