import Foundation
import GRDB
import Testing
import BlogTestSupport
import BlogModel
@testable import BlogSQLite

/// A database from before tags: its posts' hashtags become their tags
/// when it is opened (migration v14), and they are found by search (v15).
@Suite("Tag and search migration")
struct TagMigrationTests {
    @Test func postsFromBeforeTagsGetTheirHashtags() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("blog.sqlite").path
            do {
                let pool = try DatabasePool(path: path)
                try Schema.migrator(layout: PageLayout(pageSize: 50)).migrate(pool, upTo: "v13-content-html")
                try pool.write { db in
                    try db.execute(sql: "INSERT INTO users (name, password_hash, created_at) VALUES ('alice', 'h', '2027-01-15 08:00:00.000')")
                    for content in ["Old #Swift and #swift", "no tags", "(#linux) https://x.org/#frag"] {
                        try db.execute(sql: """
                            INSERT INTO posts (user_id, title, content, created_at, page, weight)
                            VALUES (1, 'Old', ?, '2027-01-15 08:00:00.000', 1, 10)
                            """, arguments: [content])
                    }
                }
                try pool.close()
            }
            let store = try SQLiteStore(path: path)
            defer { try? store.close() }
            #expect(try store.taggedPosts("swift", ofUserID: nil, before: nil, limit: 9).map(\.post.id) == [1])
            #expect(try store.taggedPosts("linux", ofUserID: 1, before: nil, limit: 9).map(\.post.id) == [3])
            #expect(try store.taggedPosts("frag", ofUserID: nil, before: nil, limit: 9).isEmpty)
            #expect(try store.posts(ids: [1]).first?.categories == [])
            // v15 indexed them for search too.
            let titled = try store.searchPosts(try SearchQuery("old"), ofUserID: nil, offset: 0, limit: 9)
            #expect(Set(titled.map(\.post.id)) == [1, 2, 3])
            #expect(try store.searchPosts(try SearchQuery("tags"), ofUserID: 1, offset: 0, limit: 9).map(\.post.id) == [2])
        }
    }
}
