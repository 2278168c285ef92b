import BlogTestSupport
import BlogWire
import Foundation
import Testing
import BlogModel

/// The answers to follows, the same on every backend: an `Accept` or
/// `Reject` is a delivery of its own kind queued in the follower's own
/// commit, to the follower's inbox, once per Follow, claimed and settled
/// as a post's; and the blog's approval setting, apart from its other
/// settings.
@Suite("BlogStorage conformance: answers to follows")
struct FollowAnswerConformanceTests {
    private func answers(_ store: any BlogStorage) throws -> [OutgoingDelivery] {
        try store.queuedDeliveries(limit: 100).filter { $0.kind != .post }
    }

    private func body(_ tag: String) -> FollowAnswerBody {
        { follower in "{\"\(tag)\":\"\(follower.followID)\"}" }
    }

    @Test(arguments: Backend.available) func anAcceptIsQueuedWithTheAcceptedFollower(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.addFollower(userID: alice.id, actorID: "https://m.example/users/bob",
                                            inbox: "https://m.example/users/bob/inbox", sharedInbox: "https://m.example/inbox",
                                            followID: "https://m.example/f/1", accepted: true, at: t0, accept: body("accept"))
            #expect(bob.state == .accepted)
            let queued = try answers(store)
            #expect(queued.count == 1)
            let accept = try #require(queued.first)
            #expect(accept.kind == .accept && accept.inbox == "https://m.example/users/bob/inbox",
                    "to the follower's own inbox, not the shared one")
            #expect(accept.host == "m.example" && accept.postID == 0 && accept.activityID < 0 && accept.userID == alice.id)
            #expect(accept.body == "{\"accept\":\"https://m.example/f/1\"}" && accept.attempts == 0)
            #expect(accept.activityID == DeliveryKind.answerActivityID(userID: alice.id, kind: .accept,
                                                                       followID: "https://m.example/f/1"))

            // Its server sends the same Follow again: one Accept still.
            _ = try store.addFollower(userID: alice.id, actorID: "https://m.example/users/bob",
                                      inbox: "https://m.example/users/bob/inbox", sharedInbox: nil,
                                      followID: "https://m.example/f/1", accepted: false, at: t0, accept: body("accept"))
            #expect(try answers(store).count == 1)
            // A new Follow of an accepted follower is answered again, even
            // when follows now wait for approval: it was accepted.
            let again = try store.addFollower(userID: alice.id, actorID: "https://m.example/users/bob",
                                              inbox: "https://m.example/users/bob/inbox", sharedInbox: nil,
                                              followID: "https://m.example/f/2", accepted: false, at: t0, accept: body("accept"))
            #expect(try again.state == .accepted && answers(store).count == 2)

            // A follow that waits: nothing queued.
            let carol = try store.addFollower(userID: alice.id, actorID: "https://p.example/carol",
                                              inbox: "https://p.example/carol/inbox", sharedInbox: nil,
                                              followID: "https://p.example/f/9", accepted: false, at: t0, accept: body("accept"))
            #expect(try carol.state == .pending && answers(store).count == 2)
            #expect(try store.queuedActivities(limit: 10).isEmpty, "no post activity")
            #expect(throws: StorageError.unknownUser) {
                try store.addFollower(userID: 999_999, actorID: "https://x.example/u", inbox: "https://x.example/u/inbox",
                                      sharedInbox: nil, followID: "f", accepted: true, at: t0, accept: body("accept"))
            }
            #expect(try answers(store).count == 2)
        }
    }

    @Test(arguments: Backend.available) func approvingAndRefusingQueueTheirAnswers(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            for name in ["carol", "dave"] {
                _ = try store.addFollower(userID: alice.id, actorID: "https://p.example/\(name)",
                                          inbox: "https://p.example/\(name)/inbox", sharedInbox: nil,
                                          followID: "https://p.example/f/\(name)", accepted: false, at: t0, accept: body("accept"))
            }
            let approved = try #require(try store.acceptFollower(userID: alice.id, actorID: "https://p.example/carol",
                                                                 at: t0, accept: body("accept")))
            #expect(approved.state == .accepted)
            #expect(try store.acceptFollower(userID: alice.id, actorID: "https://p.example/carol", at: t0,
                                             accept: body("accept")) == nil, "accepted already: nothing more")
            #expect(try store.acceptFollower(userID: alice.id, actorID: "https://p.example/nobody", at: t0,
                                             accept: body("accept")) == nil)
            #expect(try answers(store).map(\.kind) == [.accept])

            let refused = try #require(try store.refuseFollower(userID: alice.id, actorID: "https://p.example/dave", at: t0,
                                                                reject: body("reject")))
            #expect(refused.actorID == "https://p.example/dave" && refused.state == .pending)
            #expect(try store.follower(userID: alice.id, actorID: "https://p.example/dave") == nil)
            #expect(try store.refuseFollower(userID: alice.id, actorID: "https://p.example/dave", at: t0,
                                             reject: body("reject")) == nil, "gone: nothing to refuse")
            let queued = try answers(store)
            #expect(queued.map(\.kind) == [.accept, .reject])
            #expect(queued.last?.body == "{\"reject\":\"https://p.example/f/dave\"}" && queued.last?.inbox == "https://p.example/dave/inbox")
            // An accepted follower removed gets its Reject too.
            _ = try #require(try store.refuseFollower(userID: alice.id, actorID: "https://p.example/carol", at: t0,
                                                      reject: body("reject")))
            #expect(try answers(store).map(\.kind) == [.accept, .reject, .reject])
            #expect(try store.followerCount(ofUserID: alice.id, state: nil) == 0)
        }
    }

    @Test(arguments: Backend.available) func answersAreClaimedAndSettledAsPostsAre(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            _ = try store.addFollower(userID: alice.id, actorID: "https://m.example/users/bob",
                                      inbox: "https://m.example/users/bob/inbox", sharedInbox: nil,
                                      followID: "https://m.example/f/1", accepted: true, at: t0, accept: body("accept"))
            let claimed = try store.claimDeliveries(dueBy: t0, lease: 60, limit: 10)
            #expect(claimed.count == 1 && claimed.first?.kind == .accept && claimed.first?.attempts == 1)
            #expect(try store.claimDeliveries(dueBy: t0, lease: 60, limit: 10).isEmpty, "leased")
            let claim = try #require(claimed.first)
            try store.settleDeliveries([(claim, .retry(at: t0 + 120))])
            let again = try #require(try store.claimDeliveries(dueBy: t0 + 120, lease: 60, limit: 10).first)
            #expect(again.kind == .accept && again.attempts == 2)
            try store.settleDeliveries([(again, .done)])
            #expect(try answers(store).isEmpty)
            #expect(try store.deliveryCounts().delivered == 1)
            // A deleted user takes its answers along.
            _ = try store.addFollower(userID: alice.id, actorID: "https://m.example/users/eve",
                                      inbox: "https://m.example/users/eve/inbox", sharedInbox: nil,
                                      followID: "https://m.example/f/2", accepted: true, at: t0, accept: body("accept"))
            try store.deleteUser(id: alice.id)
            #expect(try answers(store).isEmpty)
        }
    }

    @Test(arguments: Backend.available) func aBlockRejectsTheFollowersItRemoves(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let actors = ["https://example.com/u/a", "https://sub.example.com/u/b", "https://notexample.com/u/c"]
            for (index, actor) in actors.enumerated() {
                _ = try store.addFollower(userID: alice.id, actorID: actor, inbox: actor + "/inbox", sharedInbox: "https://x/inbox",
                                          followID: "f\(index)", accepted: index != 1, at: t0)
                _ = try store.storeFediverseResponse(FediverseResponse(
                    userID: alice.id, postID: try store.addPost(userID: alice.id, title: "t", content: "c", at: t0).id,
                    actorID: actor, source: actor + "/like/1", target: "https://blog.test/alice/1.html",
                    content: WebmentionContent(kind: .like)), at: t0)
            }
            _ = try store.addFollower(userID: bob.id, actorID: actors[0], inbox: actors[0] + "/inbox", sharedInbox: nil,
                                      followID: "fb", accepted: true, at: t0)
            let queuedBefore = try answers(store).count
            let removed = try store.block(userID: alice.id, .domain("Example.COM."), at: t0, reject: body("reject"))
            #expect(removed.followers == 2 && removed.responses == 2)
            let rejects = try answers(store).dropFirst(queuedBefore)
            #expect(rejects.map(\.kind) == [.reject, .reject], "the pending one is told too")
            #expect(Set(rejects.map(\.inbox)) == [actors[0] + "/inbox", actors[1] + "/inbox"], "their own inboxes")
            #expect(Set(rejects.map(\.body)) == ["{\"reject\":\"f0\"}", "{\"reject\":\"f1\"}"])
            #expect(try store.isBlocked(userID: alice.id, actorID: actors[1]))
            #expect(try store.follower(userID: bob.id, actorID: actors[0]) != nil, "another blog's follower stays")
            let again = try store.block(userID: alice.id, .domain("example.com"), at: t0, reject: body("reject"))
            #expect(again.followers == 0 && again.responses == 0)
            #expect(try answers(store).count == queuedBefore + 2, "blocking again removes and sends nothing more")
            let byActor = try store.block(userID: alice.id, .actor(actors[2]), at: t0, reject: body("reject"))
            #expect(byActor.followers == 1 && byActor.responses == 1)
            #expect(try answers(store).last?.inbox == actors[2] + "/inbox")
        }
    }

    @Test(arguments: Backend.available) func approvalByHandIsASettingOfItsOwn(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            #expect(try store.approvesFollowersByHand(userID: alice.id) == false, "off by default")
            try store.setApprovesFollowersByHand(true, userID: alice.id, at: t0)
            #expect(try store.approvesFollowersByHand(userID: alice.id))
            #expect(try store.blogSettings(ofUserID: alice.id) == .unset, "the blog's other settings stay unset")
            try store.setBlogSettings(try BlogSettings(title: "Notes"), ofUserID: alice.id, at: t0)
            #expect(try store.approvesFollowersByHand(userID: alice.id), "other settings keep it")
            try store.setApprovesFollowersByHand(false, userID: alice.id, at: t0)
            #expect(try store.approvesFollowersByHand(userID: alice.id) == false)
            #expect(try store.blogSettings(ofUserID: alice.id).title == "Notes")
            #expect(throws: StorageError.unknownUser) { try store.setApprovesFollowersByHand(true, userID: 999_999, at: t0) }
            #expect(try store.approvesFollowersByHand(userID: 999_999) == false)
        }
    }
}
