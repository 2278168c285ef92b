import BlogCore
import BlogPages
import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// Tags: written with the post in its own transaction, read back by tag,
/// the same on every backend.
@Suite("BlogStorage conformance: tags")
struct TagConformanceTests {
    private func insert(_ store: any BlogStorage, _ userID: Int64, _ title: String, _ content: String,
                        categories: [String] = [], at offset: Double = 0) throws -> PostRecord {
        try store.insertPost(userID: userID, title: title, content: content, contentHTML: nil, categories: categories,
                             weight: 1, place: nil, photos: [], at: t0.addingTimeInterval(offset),
                             layout: PageLayout(pageSize: 50), token: UUID()).record
    }

    private func ids(_ posts: [AuthoredPost]) -> [Int64] { posts.map(\.post.id) }

    @Test(arguments: Backend.available) func hashtagsAndCategoriesAreTagsAcrossAndPerBlog(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let one = try insert(store, alice.id, "one", "Hello #Swift and #swift, see https://x.org/#top")
            let two = try insert(store, bob.id, "two", "plain", categories: ["swift", "linux"], at: 1)
            let three = try insert(store, alice.id, "three", "#Linux (#café)", at: 2)
            #expect(one.tags == ["swift"] && two.tags == ["swift", "linux"] && three.tags == ["linux", "café"])
            #expect(try store.posts(ids: [two.id]) == [two], "categories are read back as stored")
            #expect(ids(try store.taggedPosts("swift", ofUserID: nil, before: nil, limit: 10)) == [two.id, one.id])
            #expect(ids(try store.taggedPosts("swift", ofUserID: alice.id, before: nil, limit: 10)) == [one.id])
            #expect(ids(try store.taggedPosts("linux", ofUserID: nil, before: nil, limit: 1)) == [three.id], "bounded")
            #expect(ids(try store.taggedPosts("linux", ofUserID: nil, before: three.id, limit: 10)) == [two.id], "paged")
            #expect(try store.taggedPosts("café", ofUserID: nil, before: nil, limit: 10).map(\.author) == ["alice"])
            #expect(try store.taggedPosts("top", ofUserID: nil, before: nil, limit: 10).isEmpty, "a URL's fragment")
            #expect(try store.tags(ofUserID: alice.id, prefix: "", limit: 10) == ["café", "linux", "swift"])
            #expect(try store.tags(ofUserID: bob.id, prefix: "", limit: 1) == ["linux"], "bounded")
            #expect(try store.tags(ofUserID: bob.id, prefix: "sw", limit: 10) == ["swift"])
            #expect(try store.tags(ofUserID: bob.id, prefix: "swift", limit: 10) == ["swift"], "the prefix itself")
            #expect(try store.tags(ofUserID: bob.id, prefix: "x", limit: 10).isEmpty)
        }
    }

    @Test(arguments: Backend.available) func editsTrashAndDeletionsKeepTagsInStep(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let post = try insert(store, alice.id, "t", "#old text", categories: ["kept"])
            func tagged(_ tag: String) throws -> [Int64] { ids(try store.taggedPosts(tag, ofUserID: nil, before: nil, limit: 9)) }
            // The text changes, the categories stay.
            var edited = try #require(try store.editPost(id: post.id, ofUserID: alice.id, PostEdit(title: "t", content: "#new"),
                                                         weight: 1, photoWeight: { _ in 0 }, at: t0))
            #expect(edited.record.categories == ["kept"] && edited.record.tags == ["new", "kept"])
            #expect(try tagged("old").isEmpty && tagged("new") == [post.id] && tagged("kept") == [post.id])
            // The categories change.
            edited = try #require(try store.editPost(id: post.id, ofUserID: alice.id,
                                                     PostEdit(title: "t", content: "#new", categories: ["other"]),
                                                     weight: 1, photoWeight: { _ in 0 }, at: t0))
            #expect(edited.record.categories == ["other"])
            #expect(try tagged("kept").isEmpty && tagged("other") == [post.id])
            // The trash takes it off its tags; a restore puts it back.
            _ = try #require(try store.trashPost(id: post.id, ofUserID: alice.id, at: t0))
            #expect(try tagged("new").isEmpty && tagged("other").isEmpty)
            let restored = try #require(try store.restorePost(id: post.id, ofUserID: alice.id))
            #expect(restored.categories == ["other"])
            #expect(try tagged("new") == [post.id] && tagged("other") == [post.id])
            // A deletion, and a user's, leave nothing.
            _ = try store.removePost(id: post.id, ofUserID: alice.id, tombstone: true)
            #expect(try tagged("new").isEmpty)
            let again = try insert(store, alice.id, "u", "#new")
            #expect(try tagged("new") == [again.id])
            try store.deleteUser(id: alice.id)
            #expect(try tagged("new").isEmpty)
        }
    }
}
