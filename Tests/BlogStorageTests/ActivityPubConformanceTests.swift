import BlogTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing
import BlogModel

/// What ActivityPub keeps of the fediverse, the same on every backend:
/// each blog's key pair, its followers, its blocks, and the responses kept
/// with the received Webmentions.
@Suite("BlogStorage conformance: ActivityPub")
struct ActivityPubConformanceTests {
    @Test(arguments: Backend.available) func theFirstKeyStoredIsKept(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            #expect(try store.actorKey(ofUserID: alice.id) == nil)
            let first = try store.storeActorKey(userID: alice.id, publicPEM: "pub-1", privatePEM: "priv-1", at: t0)
            #expect(first == ActorKey(userID: alice.id, publicPEM: "pub-1", privatePEM: "priv-1", createdAt: t0))
            let second = try store.storeActorKey(userID: alice.id, publicPEM: "pub-2", privatePEM: "priv-2",
                                                 at: t0.addingTimeInterval(5))
            #expect(second == first, "the first one stays")
            #expect(try store.actorKey(ofUserID: alice.id) == first)
            #expect(throws: StorageError.unknownUser) {
                _ = try store.storeActorKey(userID: alice.id + 100, publicPEM: "p", privatePEM: "q", at: t0)
            }
        }
    }

    /// Instances making a key at once all end with the same one.
    @Test(arguments: Backend.available) func keysMadeAtOnceEndAsOne(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let kept = Mutex<[ActorKey]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                if let key = try? store.storeActorKey(userID: bob.id, publicPEM: "pub-\(index)", privatePEM: "priv-\(index)",
                                                      at: t0) {
                    kept.withLock { $0.append(key) }
                }
            }
            let keys = kept.withLock { $0 }
            #expect(keys.count == 8 && Set(keys.map(\.publicPEM)).count == 1)
            #expect(try store.actorKey(ofUserID: bob.id) == keys.first)
        }
    }

    @Test(arguments: Backend.available) func followersAreAddedAcceptedListedAndRemoved(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let carol = try store.createUser(name: "carol", passwordHash: "h", at: t0)
            let pending = try store.addFollower(userID: alice.id, actorID: "https://Masto.Example/users/bo",
                                                inbox: "https://masto.example/users/bo/inbox",
                                                sharedInbox: "https://masto.example/inbox", followID: "https://masto.example/f/1",
                                                accepted: false, at: t0)
            #expect(pending.state == .pending && pending.host == "masto.example" && pending.createdAt == t0)
            #expect(try store.deliveryTargets(ofUserID: alice.id).isEmpty, "a pending follower gets nothing")

            // A repeated Follow updates; accepting makes it a target.
            let again = try store.addFollower(userID: alice.id, actorID: "https://Masto.Example/users/bo",
                                              inbox: "https://masto.example/users/bo/inbox2",
                                              sharedInbox: "https://masto.example/inbox", followID: "https://masto.example/f/2",
                                              accepted: false, at: t0.addingTimeInterval(9))
            #expect(again.id == pending.id && again.inbox.hasSuffix("inbox2") && again.followID.hasSuffix("f/2"))
            #expect(again.createdAt == t0)
            #expect(try store.acceptFollower(userID: alice.id, actorID: "https://Masto.Example/users/bo")?.state == .accepted)
            #expect(try store.acceptFollower(userID: alice.id, actorID: "https://nobody.example/") == nil)
            // An accepted follower that follows again stays accepted.
            let repeated = try store.addFollower(userID: alice.id, actorID: "https://Masto.Example/users/bo",
                                                 inbox: "https://masto.example/users/bo/inbox2",
                                                 sharedInbox: "https://masto.example/inbox",
                                                 followID: "https://masto.example/f/3", accepted: false, at: t0)
            #expect(repeated.state == .accepted)

            // Two more on the same server (one shared inbox), one without.
            for (index, accepted) in [(1, true), (2, true), (3, false)] {
                _ = try store.addFollower(userID: alice.id, actorID: "https://masto.example/users/u\(index)",
                                          inbox: "https://masto.example/users/u\(index)/inbox",
                                          sharedInbox: "https://masto.example/inbox", followID: "f\(index)",
                                          accepted: accepted, at: t0.addingTimeInterval(Double(index)))
            }
            _ = try store.addFollower(userID: alice.id, actorID: "https://solo.example:8443/me",
                                      inbox: "https://solo.example:8443/me/inbox", sharedInbox: nil, followID: "fs",
                                      accepted: true, at: t0)
            _ = try store.addFollower(userID: carol.id, actorID: "https://masto.example/users/u1",
                                      inbox: "https://masto.example/users/u1/inbox", sharedInbox: nil, followID: "fc",
                                      accepted: true, at: t0)
            #expect(try store.deliveryTargets(ofUserID: alice.id) == [
                DeliveryTarget(inbox: "https://masto.example/inbox", host: "masto.example"),
                DeliveryTarget(inbox: "https://solo.example:8443/me/inbox", host: "solo.example"),
            ], "the shared inbox once; the host key drops the port")
            #expect(try store.followerCount(ofUserID: alice.id, state: nil) == 5)
            #expect(try store.followerCount(ofUserID: alice.id, state: .accepted) == 4)
            #expect(try store.followerCount(ofUserID: alice.id, state: .pending) == 1)
            let newest = try store.followers(ofUserID: alice.id, state: nil, offset: 0, limit: 2).map(\.actorID)
            let rest = try store.followers(ofUserID: alice.id, state: nil, offset: 2, limit: 10).map(\.actorID)
            #expect(newest == ["https://solo.example:8443/me", "https://masto.example/users/u3"])
            #expect(rest == ["https://masto.example/users/u2", "https://masto.example/users/u1",
                             "https://Masto.Example/users/bo"])
            #expect(try store.followers(ofUserID: alice.id, state: .pending, offset: 0, limit: 9).map(\.actorID)
                    == ["https://masto.example/users/u3"])

            // Undo Follow; a 410 from an inbox; the actor's Delete.
            #expect(try store.removeFollower(userID: alice.id, actorID: "https://masto.example/users/u2")?.followID == "f2")
            #expect(try store.removeFollower(userID: alice.id, actorID: "https://masto.example/users/u2") == nil)
            #expect(try store.removeFollowers(ofUserID: alice.id, deliveryInbox: "https://solo.example:8443/me/inbox") == 1)
            #expect(try store.follower(userID: alice.id, actorID: "https://solo.example:8443/me") == nil)
            let forgotten = try store.forgetActor("https://masto.example/users/u1")
            #expect(forgotten.followers == 2, "from every blog")
            #expect(try store.followerCount(ofUserID: carol.id, state: nil) == 0)
            #expect(try store.followers(ofUserID: alice.id, state: nil, offset: 0, limit: 9).map(\.actorID)
                    == ["https://masto.example/users/u3", "https://Masto.Example/users/bo"])
            #expect(throws: StorageError.unknownUser) {
                _ = try store.addFollower(userID: carol.id + 100, actorID: "https://x.example/a", inbox: "https://x.example/i",
                                          sharedInbox: nil, followID: "f", accepted: true, at: t0)
            }
        }
    }

    @Test(arguments: Backend.available) func aDomainBlockCoversItsSubdomains(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let post = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let bobsPost = try store.addPost(userID: bob.id, title: "t", content: "c", at: t0)
            let actors = ["https://example.com/u/a", "https://sub.Example.com/u/b", "https://notexample.com/u/c",
                          "https://other.org/u/d"]
            for (index, actor) in actors.enumerated() {
                _ = try store.addFollower(userID: alice.id, actorID: actor, inbox: actor + "/inbox", sharedInbox: nil,
                                          followID: "f\(index)", accepted: true, at: t0)
                _ = try #require(try store.storeFediverseResponse(
                    FediverseResponse(userID: alice.id, postID: post.id, actorID: actor, source: actor + "/like/1",
                                      target: "https://blog.test/alice/\(post.id).html",
                                      content: WebmentionContent(kind: .like)), at: t0))
            }
            // Bob's follower from the same domain is not Alice's to block.
            _ = try store.addFollower(userID: bob.id, actorID: actors[0], inbox: actors[0] + "/inbox", sharedInbox: nil,
                                      followID: "fb", accepted: true, at: t0)
            _ = try store.storeFediverseResponse(
                FediverseResponse(userID: bob.id, postID: bobsPost.id, actorID: actors[0], source: actors[0] + "/like/2",
                                  target: "https://blog.test/bob/\(bobsPost.id).html", content: WebmentionContent(kind: .like)),
                at: t0)
            // A Webmention from that domain stays: blocks are the fediverse's.
            _ = try store.queueWebmention(userID: alice.id, postID: post.id, source: "https://example.com/page",
                                          target: "https://blog.test/alice/\(post.id).html", at: t0)

            let removed = try store.block(userID: alice.id, .domain("Example.COM."), at: t0)
            #expect(removed.followers == 2 && removed.responses == 2)
            #expect(try store.followers(ofUserID: alice.id, state: nil, offset: 0, limit: 9).map(\.actorID).sorted()
                    == ["https://notexample.com/u/c", "https://other.org/u/d"])
            #expect(try store.webmentions(ofUserID: alice.id, approved: nil, limit: 9).map(\.source).sorted()
                    == ["https://example.com/page", "https://notexample.com/u/c/like/1", "https://other.org/u/d/like/1"])
            #expect(try store.followerCount(ofUserID: bob.id, state: nil) == 1)
            #expect(try store.webmentions(ofUserID: bob.id, approved: nil, limit: 9).count == 1)

            #expect(try store.isBlocked(userID: alice.id, actorID: "https://example.com/u/new"))
            #expect(try store.isBlocked(userID: alice.id, actorID: "https://deep.sub.example.com/u/x"))
            #expect(try !store.isBlocked(userID: alice.id, actorID: "https://notexample.com/u/c"))
            #expect(try !store.isBlocked(userID: bob.id, actorID: "https://example.com/u/new"))

            // An actor block: that actor only.
            let one = try store.block(userID: alice.id, .actor("https://other.org/u/d"), at: t0.addingTimeInterval(1))
            #expect(one.followers == 1 && one.responses == 1)
            #expect(try store.isBlocked(userID: alice.id, actorID: "https://other.org/u/d"))
            #expect(try !store.isBlocked(userID: alice.id, actorID: "https://other.org/u/e"))
            let repeated = try store.block(userID: alice.id, .actor("https://other.org/u/d"), at: t0)
            #expect(repeated.followers == 0 && repeated.responses == 0, "again: nothing")
            #expect(try store.blocks(ofUserID: alice.id).map(\.target)
                    == [.actor("https://other.org/u/d"), .domain("example.com")], "newest first")

            #expect(try store.unblock(userID: alice.id, .domain("example.com")))
            #expect(try !store.unblock(userID: alice.id, .domain("example.com")))
            #expect(try !store.isBlocked(userID: alice.id, actorID: "https://sub.example.com/u/b"))
        }
    }

    /// Fediverse responses are Webmentions to the approval, the counts and
    /// the post page, and are changed and removed by their source.
    @Test(arguments: Backend.available) func responsesAreKeptWithTheWebmentions(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let post = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let target = "https://blog.test/alice/\(post.id).html"
            let actor = "https://masto.example/users/bo"
            let reply = FediverseResponse(userID: alice.id, postID: post.id, actorID: actor,
                                          source: "https://masto.example/users/bo/statuses/1", target: target,
                                          content: WebmentionContent(kind: .reply, authorName: "Bo", authorURL: actor,
                                                                     text: "nice"))
            let stored = try #require(try store.storeFediverseResponse(reply, at: t0))
            #expect(stored.origin == .activitypub && stored.actorID == actor && stored.status == .verified)
            #expect(stored.verifiedAt == t0 && !stored.approved && !stored.isShown)
            #expect(try store.unapprovedWebmentionCount(ofUserID: alice.id) == 1)
            #expect(try store.dueWebmentions(at: t0.addingTimeInterval(3600), limit: 9).isEmpty, "nothing to verify")
            _ = try #require(try store.approveWebmention(id: stored.id, ofUserID: alice.id))
            #expect(try store.shownWebmentions(postID: post.id, offset: 0, limit: 9).map(\.content.text) == ["nice"])

            // An Update: new text, still approved.
            var edited = reply
            edited.content.text = "very nice"
            let updated = try #require(try store.storeFediverseResponse(edited, at: t0.addingTimeInterval(60)))
            #expect(updated.id == stored.id && updated.approved && updated.content.text == "very nice")
            // Another actor cannot take that source over.
            var forged = edited
            forged.actorID = "https://evil.example/users/x"
            forged.content.text = "spam"
            #expect(try store.storeFediverseResponse(forged, at: t0) == nil)
            #expect(try store.webmention(id: stored.id)?.content.text == "very nice")

            // Likes, approved at once, counted beside the reply.
            for index in 1...2 {
                _ = try store.storeFediverseResponse(
                    FediverseResponse(userID: alice.id, postID: post.id, actorID: "https://m\(index).example/u",
                                      source: "https://m\(index).example/likes/\(index)", target: target,
                                      content: WebmentionContent(kind: .like), approved: true), at: t0)
            }
            #expect(try store.shownWebmentionCounts(postID: post.id) == [.reply: 1, .like: 2])
            #expect(try store.fediverseResponses(source: "https://m1.example/likes/1").map(\.actorID) == ["https://m1.example/u"])

            // A Delete by someone else removes nothing; by the actor, it goes.
            #expect(try store.removeFediverseResponses(source: reply.source, actorID: forged.actorID, ofUserID: nil).isEmpty)
            #expect(try store.removeFediverseResponses(source: reply.source, actorID: actor, ofUserID: alice.id + 1).isEmpty)
            #expect(try store.removeFediverseResponses(source: reply.source, actorID: actor, ofUserID: nil).map(\.id)
                    == [stored.id])
            #expect(try store.removeFediverseResponses(ofActorID: "https://m1.example/u", userID: nil) == 1)
            #expect(try store.shownWebmentionCounts(postID: post.id) == [.like: 1])

            // A Webmention is still one.
            let mention = try store.queueWebmention(userID: alice.id, postID: post.id, source: "https://site.example/p",
                                                    target: target, at: t0)
            #expect(mention.origin == .webmention && mention.actorID == nil)
            #expect(try store.webmention(id: mention.id)?.origin == .webmention)
            let forgotten = try store.forgetActor("https://m2.example/u")
            #expect(forgotten.followers == 0 && forgotten.responses == 1)
            #expect(try store.webmentions(ofUserID: alice.id, approved: nil, limit: 9).map(\.source) == ["https://site.example/p"])
        }
    }
}
