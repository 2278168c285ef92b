import BlogCore
import BlogTestSupport
import Foundation
import Testing
import BlogModel
@testable import BlogPostgres
@testable import BlogSQLite

/// A post in the trash keeps its responses (received Webmentions and
/// fediverse replies, likes), the same on every backend: hidden from every
/// read while it is there (the verifier's queue, the moderation lists,
/// the counts, the pages), back as they were on restore, gone for good
/// when the trash is purged.
@Suite("BlogStorage conformance: a trashed post's responses")
struct TrashedResponsesConformanceTests {
    static let actor = "https://masto.example/users/bo"

    /// Rows in `webmentions`, hidden ones included.
    static func storedRows(_ store: any BlogStorage) throws -> Int {
        if let sqlite = store as? SQLiteStore {
            return try sqlite.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM webmentions") ?? -1 }
        }
        let postgres = try #require(store as? PostgresStore)
        return Int(try postgres.rows("SELECT COUNT(*) FROM webmentions") { try $0.decode(Int64.self) }.first ?? -1)
    }

    /// A post of `userID` with a reply approved and shown, one verified and
    /// waiting, one still queued for verification, and a fediverse like.
    static func answeredPost(_ store: any BlogStorage, userID: Int64, title: String) throws
        -> (postID: Int64, shown: Webmention, waiting: Webmention, queued: Webmention, like: Webmention) {
        let postID = try WebmentionConformanceTests.post(store, user: userID, title: title)
        let target = "https://blog.test/alice/\(postID).html"
        func received(_ n: Int) throws -> Webmention {
            try store.queueWebmention(userID: userID, postID: postID, source: "https://b.example/\(postID)/\(n)", target: target,
                                      at: t0)
        }
        let reply = WebmentionContent(kind: .reply, authorName: "Bo", authorURL: "https://b.example/", text: "Nice")
        let first = try received(1)
        _ = try store.storeVerification(id: first.id, content: reply, at: t0)
        let shown = try #require(try store.approveWebmention(id: first.id, ofUserID: userID))
        let second = try received(2)
        let waiting = try #require(try store.storeVerification(id: second.id, content: WebmentionContent(kind: .mention),
                                                                at: t0))
        let queued = try received(3)
        let like = try #require(try store.storeFediverseResponse(
            FediverseResponse(userID: userID, postID: postID, actorID: actor, source: actor + "/like/\(postID)",
                              target: target, content: WebmentionContent(kind: .like), approved: true), at: t0))
        return (postID, shown, waiting, queued, like)
    }

    @Test(arguments: Backend.available) func hiddenInTheTrashAndBackOnRestore(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let post = try Self.answeredPost(store, userID: alice.id, title: "Answered")
            let other = try Self.answeredPost(store, userID: alice.id, title: "Other")
            let all = [post.shown, post.waiting, post.queued, post.like]
            #expect(try store.shownWebmentions(postID: post.postID, offset: 0, limit: 10).map(\.id) == [post.like.id, post.shown.id])
            #expect(try Self.storedRows(store) == 8)

            _ = try #require(try store.trashPost(id: post.postID, ofUserID: alice.id, at: t0.addingTimeInterval(10)))
            #expect(try Self.storedRows(store) == 8, "\(backend): kept")
            #expect(try store.shownWebmentions(postID: post.postID, offset: 0, limit: 10).isEmpty)
            #expect(try store.shownWebmentionCounts(postID: post.postID).isEmpty)
            #expect(try store.postIDsWithShownWebmentions(ofUserID: alice.id) == [other.postID])
            for mention in all { #expect(try store.webmention(id: mention.id) == nil, "\(backend): \(mention.id) hidden") }
            let listed = try store.webmentions(ofUserID: alice.id, approved: nil, limit: 100).map(\.id)
            #expect(Set(listed) == Set([other.shown.id, other.waiting.id, other.queued.id, other.like.id]))
            #expect(try store.webmentions(ofUserID: nil, approved: false, limit: 100).map(\.id).sorted()
                    == [other.waiting.id, other.queued.id].sorted())
            #expect(try store.unapprovedWebmentionCount(ofUserID: alice.id) == 2, "the other post's only")
            // The verifier finds nothing of it to do, and can change none of it.
            #expect(try store.dueWebmentions(at: t0.addingTimeInterval(3600), limit: 10).map(\.id) == [other.queued.id])
            #expect(try store.storeVerification(id: post.queued.id, content: WebmentionContent(kind: .reply),
                                                at: t0.addingTimeInterval(20)) == nil)
            #expect(try store.approveWebmention(id: post.waiting.id, ofUserID: nil) == nil)
            #expect(try store.deleteWebmention(id: post.shown.id, ofUserID: alice.id) == nil)
            #expect(try store.fediverseResponses(source: post.like.source).isEmpty)
            #expect(storageError {
                _ = try store.queueWebmention(userID: alice.id, postID: post.postID, source: "https://c.example/", target: "t",
                                              at: t0)
            } != nil, "\(backend): nothing new arrives for a post in the trash")

            _ = try #require(try store.restorePost(id: post.postID, ofUserID: alice.id))
            for mention in all {
                #expect(try store.webmention(id: mention.id) == mention, "\(backend): \(mention.id) back as it was")
            }
            #expect(try store.shownWebmentions(postID: post.postID, offset: 0, limit: 10).map(\.id) == [post.like.id, post.shown.id])
            #expect(try store.shownWebmentionCounts(postID: post.postID) == [.reply: 1, .like: 1])
            #expect(try store.postIDsWithShownWebmentions(ofUserID: alice.id) == [post.postID, other.postID])
            #expect(try store.unapprovedWebmentionCount(ofUserID: alice.id) == 4)
            #expect(Set(try store.dueWebmentions(at: t0.addingTimeInterval(3600), limit: 10).map(\.id))
                    == [post.queued.id, other.queued.id], "\(backend): verified after all")
            #expect(try store.fediverseResponses(source: post.like.source) == [post.like])
        }
    }

    @Test(arguments: Backend.available) func purgedWithThePost(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let old = try Self.answeredPost(store, userID: alice.id, title: "Old")
            let named = try Self.answeredPost(store, userID: alice.id, title: "Named")
            let kept = try Self.answeredPost(store, userID: alice.id, title: "Kept")
            _ = try store.trashPost(id: old.postID, ofUserID: alice.id, at: t0)
            _ = try store.trashPost(id: named.postID, ofUserID: alice.id, at: t0.addingTimeInterval(100))
            #expect(try Self.storedRows(store) == 12)
            #expect(try store.purgeTrash(trashedBefore: t0.addingTimeInterval(50), limit: 10) == 1)
            #expect(try Self.storedRows(store) == 8, "\(backend): the purged post's responses went with it")
            #expect(try store.purgeTrashedPost(id: named.postID) == alice.id)
            #expect(try Self.storedRows(store) == 4)
            #expect(try store.restorePost(id: old.postID, ofUserID: alice.id) == nil)
            #expect(try store.shownWebmentions(postID: kept.postID, offset: 0, limit: 10).count == 2)
            try store.deletePost(id: kept.postID)
            #expect(try Self.storedRows(store) == 0, "\(backend): deleted for good, as before")
        }
    }

    /// The fediverse's own removals reach a trashed post's responses: a
    /// note deleted, an actor blocked; the restore brings back neither.
    @Test(arguments: Backend.available) func removalsWhileInTheTrash(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let post = try Self.answeredPost(store, userID: alice.id, title: "Answered")
            let reply = try #require(try store.storeFediverseResponse(
                FediverseResponse(userID: alice.id, postID: post.postID, actorID: "https://other.example/users/cy",
                                  source: "https://other.example/notes/1", target: post.like.target,
                                  content: WebmentionContent(kind: .reply, text: "hi"), approved: true), at: t0))
            _ = try store.trashPost(id: post.postID, ofUserID: alice.id, at: t0)
            #expect(try store.removeFediverseResponses(source: post.like.source, actorID: Self.actor, ofUserID: nil).isEmpty,
                    "\(backend): nothing shown to rewrite")
            #expect(try store.block(userID: alice.id, .domain("other.example"), at: t0).responses == 1)
            #expect(try Self.storedRows(store) == 3)
            _ = try #require(try store.restorePost(id: post.postID, ofUserID: alice.id))
            #expect(try store.shownWebmentions(postID: post.postID, offset: 0, limit: 10).map(\.id) == [post.shown.id])
            #expect(try store.webmention(id: reply.id) == nil)
        }
    }
}
