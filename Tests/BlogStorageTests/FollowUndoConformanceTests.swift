import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// A follow undone by its Follow's id alone (the shared inbox's `Undo`
/// that names no blog), the same on every backend: the actor and the id
/// must both match, on whichever blogs they do.
@Suite("BlogStorage conformance: a follow undone by its id alone")
struct FollowUndoConformanceTests {
    @Test(arguments: Backend.available) func theActorAndTheFollowIdMustBothMatch(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let carol = try store.createUser(name: "carol", passwordHash: "h", at: t0)
            let bob = "https://social.example/users/bob", eve = "https://social.example/users/eve"
            for (user, followID, accepted) in [(alice, "https://social.example/f/1", true),
                                               (carol, "https://social.example/f/2", false)] {
                _ = try store.addFollower(userID: user.id, actorID: bob, inbox: bob + "/inbox", sharedInbox: nil,
                                          followID: followID, accepted: accepted, at: t0)
            }
            _ = try store.addFollower(userID: alice.id, actorID: eve, inbox: eve + "/inbox", sharedInbox: nil,
                                      followID: "https://social.example/f/3", accepted: true, at: t0)

            #expect(try store.removeFollows(actorID: eve, followID: "https://social.example/f/1").isEmpty,
                    "another actor's Follow id")
            #expect(try store.removeFollows(actorID: bob, followID: "https://social.example/f/3").isEmpty,
                    "the id of someone else's Follow")
            #expect(try store.removeFollows(actorID: bob, followID: "https://social.example/f/9").isEmpty)

            let removed = try store.removeFollows(actorID: bob, followID: "https://social.example/f/2")
            #expect(removed.map(\.userID) == [carol.id] && removed.first?.state == .pending, "a waiting follow too")
            #expect(try store.follower(userID: carol.id, actorID: bob) == nil)
            #expect(try store.follower(userID: alice.id, actorID: bob)?.followID == "https://social.example/f/1")
            let again = try store.removeFollows(actorID: bob, followID: "https://social.example/f/1")
            #expect(again.map(\.actorID) == [bob] && again.first?.userID == alice.id)
            #expect(try store.followers(ofUserID: alice.id, state: nil, offset: 0, limit: 10).map(\.actorID) == [eve])
            #expect(try store.removeFollows(actorID: bob, followID: "https://social.example/f/1").isEmpty, "once")
        }
    }
}
