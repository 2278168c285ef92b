import BlogCore
import BlogPages
import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// Full-text search, the same on every backend: a post is found by a
/// word of its text or title, across blogs or in one, ranked, bounded,
/// and the index follows edits, the trash and deletions.
@Suite("BlogStorage conformance: search")
struct SearchConformanceTests {
    private func query(_ text: String) throws -> SearchQuery { try SearchQuery(text) }

    private func found(_ store: any BlogStorage, _ text: String, user: Int64? = nil,
                       offset: Int = 0, limit: Int = 20) throws -> [Int64] {
        try store.searchPosts(try query(text), ofUserID: user, offset: offset, limit: limit).map(\.post.id)
    }

    @Test(arguments: Backend.available) func aPostIsFoundByAWordOfItsText(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let one = try store.addPost(userID: alice.id, title: "Tuesday", content: "The quick brown fox jumps", at: t0)
            let two = try store.addPost(userID: bob.id, title: "Foxes", content: "A fox, a fox and one more FOX.",
                                        at: t0.addingTimeInterval(1))
            let three = try store.addPost(userID: alice.id, title: "Other", content: "nothing to see", at: t0.addingTimeInterval(2))
            #expect(try found(store, "quick") == [one.id])
            #expect(try found(store, "tuesday") == [one.id], "the title too")
            #expect(try Set(found(store, "fox")) == [one.id, two.id])
            #expect(try found(store, "fox").first == two.id, "ranked: three foxes before one")
            #expect(try found(store, "FOX brown") == [one.id], "every term, any case")
            #expect(try found(store, "fox", user: alice.id) == [one.id], "one blog")
            #expect(try found(store, "fox", limit: 1) == [two.id] && found(store, "fox", offset: 1) == [one.id], "paged")
            #expect(try found(store, "elephant").isEmpty && found(store, "fo").isEmpty, "no prefixes")
            let authors = try store.searchPosts(try query("see"), ofUserID: nil, offset: 0, limit: 5)
            #expect(authors.map(\.author) == ["alice"] && authors.first?.post == three)
        }
    }

    @Test(arguments: Backend.available) func theIndexFollowsEditsTheTrashAndDeletions(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let post = try store.addPost(userID: alice.id, title: "t", content: "walrus", at: t0)
            _ = try store.editPost(id: post.id, ofUserID: alice.id, title: "t", content: "narwhal", weight: 1, at: t0)
            #expect(try found(store, "walrus").isEmpty && found(store, "narwhal") == [post.id])
            _ = try store.trashPost(id: post.id, ofUserID: alice.id, at: t0)
            #expect(try found(store, "narwhal").isEmpty)
            _ = try store.restorePost(id: post.id, ofUserID: alice.id)
            #expect(try found(store, "narwhal") == [post.id])
            _ = try store.removePost(id: post.id, ofUserID: nil, tombstone: true)
            #expect(try found(store, "narwhal").isEmpty)
            let again = try store.addPost(userID: alice.id, title: "t", content: "narwhal", at: t0)
            try store.deleteUser(id: alice.id)
            #expect(try found(store, "narwhal").isEmpty, "gone with its user (\(again.id))")
        }
    }

    /// What a reader types never reaches a query language: quotes,
    /// operators, column filters and prefixes are only separators.
    @Test(arguments: Backend.available) func queryTextIsOnlyWords(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let post = try store.addPost(userID: alice.id, title: "t", content: "alpha beta", at: t0)
            for text in ["\"alpha", "alpha*", "title:alpha", "alpha OR", "alpha & !beta", "(alpha", "alpha NEAR/2 beta",
                         "alpha')--", "alpha:*", "-alpha"] {
                let terms = try query(text).terms
                #expect(terms.allSatisfy { $0.allSatisfy { $0.isLetter || $0.isNumber } }, "\(text)")
                _ = try found(store, text)
            }
            #expect(try found(store, "\"alpha") == [post.id])
            #expect(try found(store, "alpha OR") .isEmpty, "OR is a word here, and no post has it")
            #expect(try found(store, "-alpha") == [post.id])
        }
    }

    @Test func queriesAreBounded() {
        #expect(throws: SearchQuery.Problem.empty) { try SearchQuery(" ,;' ") }
        #expect(throws: SearchQuery.Problem.tooLong) { try SearchQuery(String(repeating: "a ", count: 101)) }
        #expect(throws: SearchQuery.Problem.tooManyTerms) { try SearchQuery("a b c d e f g h i") }
        #expect(throws: SearchQuery.Problem.termTooLong) { try SearchQuery(String(repeating: "x", count: 65)) }
        #expect((try? SearchQuery("Fox fox FOX"))?.terms == ["fox"])
        #expect((try? SearchQuery("a\"b"))?.fts5 == "\"a\" \"b\"")
    }
}
