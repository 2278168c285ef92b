import BlogApp
import BlogCore
import BlogModel
import BlogWeb
import Foundation
import Synchronization
import Testing

/// The inbox on the blog's real storage (a SQLite file): followers,
/// blocks and responses as the store keeps them, and the post's page.
@Suite struct StoredInboxActionsTests {
    static func fixture() async throws -> InboxFixture {
        try await InboxFixture(stored: { app in StoredInboxActions(service: app.blog.service, baseURL: AppFixture.base) })
    }

    /// The answers to follows waiting in the delivery queue: kind, inbox, body.
    static func answers(_ f: InboxFixture) throws -> [(kind: DeliveryKind, inbox: String, body: String)] {
        try f.app.blog.store.queuedDeliveries(limit: 100).filter { $0.kind != .post }.map { ($0.kind, $0.inbox, $0.body) }
    }

    @Test func followIsStoredAcceptedAndUndone() async throws {
        let f = try await Self.fixture()
        let follow = InboxFixture.activity("Follow", id: "https://social.example/follows/9", object: f.alice)
        #expect(try await f.post(follow).status == 202)
        let follower = try #require(try f.app.blog.store.follower(userID: f.user.id, actorID: InboxFixture.bob))
        #expect(follower.state == .accepted && follower.inbox == InboxFixture.bob + "/inbox")
        #expect(follower.sharedInbox == "https://social.example/inbox" && follower.followID == "https://social.example/follows/9")
        let answers = try Self.answers(f)
        #expect(answers.map(\.kind) == [.accept] && answers.first?.inbox == InboxFixture.bob + "/inbox",
                 "the Accept is queued with the follower")
        #expect(answers.first?.body.contains("\"object\":{\"id\":\"https://social.example/follows/9\"") == true)
        #expect(try await f.post(follow).status == 202)
        #expect(try Self.answers(f).count == 1, "the same Follow again: the same Accept, queued once")
        let undo = InboxFixture.activity("Undo", object: ["type": "Follow", "id": "https://social.example/follows/9",
                                                          "actor": InboxFixture.bob, "object": f.alice])
        #expect(try await f.post(undo).status == 202)
        #expect(try f.app.blog.store.follower(userID: f.user.id, actorID: InboxFixture.bob) == nil)
        await f.close()
    }

    /// bovine undoes a Follow by its id alone, to the followed actor's own
    /// inbox: that inbox names the blog, so the follower goes; another
    /// Follow id leaves it.
    @Test func anUndoByTheFollowsIdAloneRemovesTheFollowerAtTheBlogsInbox() async throws {
        let f = try await Self.fixture()
        let followID = "https://social.example/follows/10"
        #expect(try await f.post(InboxFixture.activity("Follow", id: followID, object: f.alice)).status == 202)
        #expect(try await f.post(InboxFixture.activity("Undo", object: "https://social.example/follows/other")).status == 202)
        #expect(try f.app.blog.store.follower(userID: f.user.id, actorID: InboxFixture.bob) != nil)
        #expect(try await f.post(InboxFixture.activity("Undo", object: followID)).status == 202)
        #expect(try f.app.blog.store.follower(userID: f.user.id, actorID: InboxFixture.bob) == nil)
        await f.close()
    }

    /// At the shared inbox, which names no blog, the follower is found by
    /// the actor and the Follow id together, on every blog.
    @Test func anUndoByTheFollowsIdAloneRemovesTheFollowerAtTheSharedInbox() async throws {
        let f = try await Self.fixture()
        let followID = "https://social.example/follows/11"
        #expect(try await f.post(InboxFixture.activity("Follow", id: followID, object: f.alice), to: "/ap/inbox").status == 202)
        let eve = "https://social.example/users/eve"
        #expect(try await f.post(InboxFixture.activity("Undo", actor: eve, object: followID), to: "/ap/inbox",
                                 keyID: eve + "#main-key").status == 202)
        #expect(try f.app.blog.store.follower(userID: f.user.id, actorID: InboxFixture.bob) != nil,
                "a third party undoes no one's follow")
        #expect(try await f.post(InboxFixture.activity("Undo", object: followID), to: "/ap/inbox").status == 202)
        #expect(try f.app.blog.store.follower(userID: f.user.id, actorID: InboxFixture.bob) == nil)
        await f.close()
    }

    @Test func replyWaitsForApprovalLikeIsCountedAndBothGo() async throws {
        let f = try await Self.fixture()
        let note = InboxFixture.note(inReplyTo: f.postObject, content: "<p>From <b>Mastodon</b></p>")
        #expect(try await f.post(InboxFixture.activity("Create", object: note)).status == 202)
        let reply = try #require(try f.app.blog.store.webmentions(ofUserID: f.user.id, approved: false, limit: 10).first)
        #expect(reply.origin == .activitypub && reply.actorID == InboxFixture.bob && reply.content.text == "From Mastodon")
        #expect(!f.postPage.contains("From Mastodon"))
        _ = try f.app.blog.service.approveWebmention(id: reply.id, ofUserID: f.user.id)
        #expect(f.postPage.contains("From Mastodon") && f.postPage.contains("1 reply"))

        let edited = InboxFixture.note(inReplyTo: f.postObject, content: "Edited on Mastodon")
        #expect(try await f.post(InboxFixture.activity("Update", object: edited)).status == 202)
        #expect(f.postPage.contains("Edited on Mastodon") && !f.postPage.contains("From Mastodon"))

        #expect(try await f.post(InboxFixture.activity("Like", id: "https://social.example/likes/3", object: f.postObject)).status == 202)
        #expect(f.postPage.contains("1 like"), "a like is counted at once")
        #expect(try await f.post(InboxFixture.activity("Undo", object: "https://social.example/likes/3")).status == 202)
        #expect(!f.postPage.contains("1 like"))

        #expect(try await f.post(InboxFixture.activity("Delete", object: "https://social.example/notes/1")).status == 202)
        #expect(!f.postPage.contains("Edited on Mastodon"))
        #expect(try f.app.blog.store.webmentions(ofUserID: f.user.id, approved: nil, limit: 10).isEmpty)
        await f.close()
    }

    @Test func blockedActorsAndDomainsAreRefusedAndNothingIsStored() async throws {
        let f = try await Self.fixture()
        _ = try f.app.blog.store.block(userID: f.user.id, .domain("example"), at: Date())
        #expect(try await f.post(InboxFixture.activity("Follow", object: f.alice)).status == 403, "a parent domain covers it")
        let reply = InboxFixture.activity("Create", object: InboxFixture.note(inReplyTo: f.postObject, content: "spam"))
        #expect(try await f.post(reply).status == 403)
        #expect(try f.app.blog.store.followerCount(ofUserID: f.user.id, state: nil) == 0)
        #expect(try f.app.blog.store.webmentions(ofUserID: f.user.id, approved: nil, limit: 10).isEmpty)
        await f.close()
    }
}
