import Foundation
import GRDB
import Testing
import BlogTestSupport
import BlogModel
@testable import BlogPages
@testable import BlogCore
@testable import BlogSQLite

/// The page writer's in-memory copy of each blog's newest posts never
/// differs from what the database holds, whoever changed it.
struct NewestPostsCacheTests {
    /// Small groups, so that posts move to new groups and out of the two
    /// newest often.
    let layout = PageLayout(pageSize: 3, pageBytes: 400)

    private func withStore<T>(_ body: (SQLiteStore, URL) throws -> T) throws -> T {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path, layout: layout)
            defer { try? store.close() }
            return try body(store, folder)
        }
    }

    /// What the database query gives, bypassing the copy.
    private func fromDatabase(_ store: SQLiteStore, _ userID: Int64) throws -> [PostStub] {
        try store.pool.read { try SQLiteStore.newestPosts($0, userID: userID) }
    }

    private func insert(_ store: SQLiteStore, _ user: UserRecord, _ number: Int, length: Int = 20) throws -> PostRecord {
        let content = String(repeating: "x", count: length)
        return try store.addPost(userID: user.id, title: "post \(number)", content: content,
                                 weight: PageRenderer.weight(title: "post \(number)", content: content),
                                 at: TestClock.start, layout: layout)
    }

    @Test func insertsAreFollowedWithoutReadingBack() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: TestClock.start)
            #expect(try store.newestPosts(ofUserID: alice.id) == [])
            for number in 1...20 {
                let post = try insert(store, alice, number, length: number % 4 == 0 ? 300 : 20)
                let version = try #require(try store.pool.read {
                    try Int64.fetchOne($0, sql: "SELECT posts_version FROM users WHERE id = ?", arguments: [alice.id])
                })
                // The copy followed the insert, in memory...
                let cached = try #require(store.newest.posts(of: alice.id, version: version), "post \(number)")
                #expect(cached.first?.id == post.id)
                // ...and holds what the database does.
                #expect(cached == (try fromDatabase(store, alice.id)), "post \(number)")
            }
            #expect(Set(try fromDatabase(store, alice.id).map(\.page)).count == 2, "two groups: the test moved groups")
        }
    }

    @Test func everyMixOfChangesReadsAsTheDatabase() throws {
        try withStore { store, _ in
            var generator = SystemRandomNumberGenerator()
            let users = try (0..<3).map { try store.createUser(name: "u\($0)", passwordHash: "h", at: TestClock.start) }
            var posts: [Int64: [Int64]] = [:]
            for step in 0..<300 {
                let user = users.randomElement(using: &generator)!
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<6:
                    let post = try insert(store, user, step, length: Int.random(in: 1...250, using: &generator))
                    posts[user.id, default: []].append(post.id)
                case 6..<8:
                    if let id = posts[user.id]?.randomElement(using: &generator) {
                        _ = try store.editPost(id: id, ofUserID: user.id, title: "edited \(step)", content: "e",
                                               weight: 10, at: TestClock.start.addingTimeInterval(Double(step)))
                    }
                default:
                    if let id = posts[user.id]?.randomElement(using: &generator) {
                        _ = try store.removePost(id: id, ofUserID: user.id, tombstone: true)
                        posts[user.id]?.removeAll { $0 == id }
                    }
                }
                for user in users {
                    #expect(try store.newestPosts(ofUserID: user.id) == (try fromDatabase(store, user.id)), "step \(step)")
                }
            }
        }
    }

    /// An admin command runs in a process of its own, with a store of its
    /// own: the server's copy must not outlive its change.
    @Test func changesByAnotherStoreAreSeen() throws {
        try withStore { server, folder in
            let alice = try server.createUser(name: "alice", passwordHash: "h", at: TestClock.start)
            let first = try insert(server, alice, 1)
            let second = try insert(server, alice, 2)
            #expect(try server.newestPosts(ofUserID: alice.id).map(\.id) == [second.id, first.id])
            let admin = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path, layout: layout)
            defer { try? admin.close() }
            _ = try admin.removePost(id: second.id, ofUserID: nil, tombstone: true)
            #expect(try server.newestPosts(ofUserID: alice.id).map(\.id) == [first.id])
            _ = try admin.editPost(id: first.id, ofUserID: alice.id, title: "t", content: "c", weight: 2,
                                   at: TestClock.start.addingTimeInterval(60))
            #expect(try server.newestPosts(ofUserID: alice.id) == (try fromDatabase(server, alice.id)))
            #expect(try server.newestPosts(ofUserID: alice.id).first?.updatedAt != nil)
            let third = try insert(admin, alice, 3)
            #expect(try server.newestPosts(ofUserID: alice.id).map(\.id) == [third.id, first.id])
        }
    }

    /// A user made after a deleted one may get its id; it never sees the
    /// deleted one's posts.
    @Test func aDeletedUsersCopyGoes() throws {
        try withStore { store, _ in
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: TestClock.start)
            _ = try insert(store, bob, 1)
            #expect(try store.newestPosts(ofUserID: bob.id).count == 1)
            try store.deleteUser(id: bob.id)
            let carol = try store.createUser(name: "carol", passwordHash: "h", at: TestClock.start)
            #expect(try store.newestPosts(ofUserID: carol.id) == [])
        }
    }

    @Test func onlyTheMostRecentBlogsAreKept() {
        let cache = NewestPostsCache(capacity: 2)
        for id in Int64(1)...3 { cache.store([PostStub(id: id, page: 1, weight: 1)], of: id, version: 1) }
        #expect(cache.count == 2)
        #expect(cache.posts(of: 1, version: 1) == nil)
        #expect(cache.posts(of: 3, version: 1) != nil)
    }

    @Test func anInsertOutOfOrderDropsTheCopy() {
        let cache = NewestPostsCache()
        cache.store([PostStub(id: 1, page: 1, weight: 1)], of: 9, version: 1)
        cache.inserted(PostStub(id: 3, page: 1, weight: 1), of: 9, version: 3)
        #expect(cache.posts(of: 9, version: 3) == nil)
        #expect(cache.posts(of: 9, version: 1) == nil)
    }
}
