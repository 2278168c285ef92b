import BlogCore
import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// Received Webmentions, the same on every backend: queued, re-queued by
/// the same source, verified, approved, shown and counted, deleted, gone
/// with their post.
@Suite("BlogStorage conformance: webmentions")
struct WebmentionConformanceTests {
    static func post(_ store: any BlogStorage, user: Int64, title: String = "Hi") throws -> Int64 {
        try store.addPost(userID: user, title: title, content: "text", weight: 4, at: t0, layout: PageLayout(pageSize: 50)).id
    }

    @Test(arguments: Backend.available) func queueVerifyApproveShow(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let postID = try Self.post(store, user: alice.id)
            let queued = try store.queueWebmention(userID: alice.id, postID: postID, source: "https://b.example/1",
                                                   target: "http://localhost/alice/\(postID).html", at: t0.addingTimeInterval(0.0004))
            #expect(queued.status == .queued && !queued.approved && queued.verifiedAt == nil && queued.attempts == 0)
            #expect(queued.receivedAt == t0 && queued.nextAttemptAt == t0, "to the millisecond")
            #expect(try store.webmention(id: queued.id) == queued)
            #expect(try store.dueWebmentions(at: t0.addingTimeInterval(-1), limit: 10).isEmpty)
            #expect(try store.dueWebmentions(at: t0, limit: 10) == [queued])

            try store.deferVerification(id: queued.id, attempts: 1, retryAt: t0.addingTimeInterval(60))
            #expect(try store.dueWebmentions(at: t0.addingTimeInterval(59), limit: 10).isEmpty, "deferred")
            #expect(try store.dueWebmentions(at: t0.addingTimeInterval(60), limit: 10).first?.attempts == 1)

            let content = WebmentionContent(kind: .reply, authorName: "Bob <b>", authorURL: "https://b.example/",
                                            authorPhoto: "https://b.example/me.jpg", title: "", text: "Nice ünïcödé 😀")
            let verified = try #require(try store.storeVerification(id: queued.id, content: content, at: t0.addingTimeInterval(61)))
            #expect(verified.status == .verified && verified.content == content && verified.attempts == 0)
            #expect(try store.dueWebmentions(at: t0.addingTimeInterval(100), limit: 10).isEmpty)
            #expect(try store.shownWebmentions(postID: postID, offset: 0, limit: 10).isEmpty, "not approved yet")
            #expect(try store.webmentions(ofUserID: alice.id, approved: false, limit: 10).map(\.id) == [queued.id])

            let approved = try #require(try store.approveWebmention(id: queued.id, ofUserID: alice.id))
            #expect(approved.approved && approved.isShown)
            #expect(try store.shownWebmentions(postID: postID, offset: 0, limit: 10) == [approved])
            #expect(try store.shownWebmentionCounts(postID: postID) == [.reply: 1])
            #expect(try store.postIDsWithShownWebmentions(ofUserID: alice.id) == [postID])

            // Sent again: queued again, still shown as verified until re-verified.
            let again = try store.queueWebmention(userID: alice.id, postID: postID, source: "https://b.example/1",
                                                  target: "http://localhost/alice/\(postID).html", at: t0.addingTimeInterval(200))
            #expect(again.id == queued.id && again.status == .queued && again.approved && again.content == content)
            #expect(try store.shownWebmentions(postID: postID, offset: 0, limit: 10).count == 1)
            #expect(try store.dueWebmentions(at: t0.addingTimeInterval(200), limit: 10).map(\.id) == [queued.id])
        }
    }

    @Test(arguments: Backend.available) func ownershipPagingAndDeletion(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let postID = try Self.post(store, user: alice.id)
            var ids: [Int64] = []
            for n in 0..<5 {
                let mention = try store.queueWebmention(userID: alice.id, postID: postID, source: "https://s.example/\(n)",
                                                        target: "t", at: t0)
                _ = try store.storeVerification(id: mention.id, content: WebmentionContent(kind: n % 2 == 0 ? .like : .mention),
                                                at: t0)
                ids.append(mention.id)
            }
            #expect(try store.unapprovedWebmentionCount(ofUserID: alice.id) == 5)
            #expect(try store.unapprovedWebmentionCount(ofUserID: bob.id) == 0)
            #expect(try store.approveWebmention(id: ids[0], ofUserID: bob.id) == nil, "not bob's")
            for id in ids { _ = try store.approveWebmention(id: id, ofUserID: nil) }
            #expect(try store.unapprovedWebmentionCount(ofUserID: alice.id) == 0)
            #expect(try store.shownWebmentions(postID: postID, offset: 0, limit: 2).map(\.id) == [ids[4], ids[3]], "newest first")
            #expect(try store.shownWebmentions(postID: postID, offset: 2, limit: 2).map(\.id) == [ids[2], ids[1]])
            #expect(try store.shownWebmentionCounts(postID: postID) == [.like: 3, .mention: 2])
            #expect(try store.deleteWebmention(id: ids[0], ofUserID: bob.id) == nil)
            #expect(try store.deleteWebmention(id: ids[0], ofUserID: alice.id)?.id == ids[0])
            #expect(try store.webmention(id: ids[0]) == nil)
            #expect(try store.webmentions(ofUserID: nil, approved: nil, limit: 100).count == 4)
            try store.deletePost(id: postID)
            #expect(try store.webmentions(ofUserID: nil, approved: nil, limit: 100).isEmpty, "gone with the post")
            #expect(storageError {
                _ = try store.queueWebmention(userID: alice.id, postID: postID, source: "https://s.example/x", target: "t", at: t0)
            } != nil, "no webmention of a post that is gone")
        }
    }
}
