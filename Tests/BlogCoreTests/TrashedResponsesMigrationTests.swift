import Foundation
import GRDB
import Testing
import BlogTestSupport
import BlogModel
@testable import BlogPages
@testable import BlogSQLite

/// v22 makes `webmentions` again (its `post_id` may be NULL now): a
/// database from before keeps every row, id and value, and its
/// responses then follow their post into the trash and back.
@Suite("Schema: trashed responses")
struct TrashedResponsesMigrationTests {
    @Test func aDatabaseFromBeforeKeepsItsResponses() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("v21.sqlite").path
            let old = try DatabaseQueue(path: path)
            try Schema.migrator(layout: PageLayout(pageSize: 50)).migrate(old, upTo: "v21-follow-answers")
            let stamp = "'2027-01-15 08:00:00.000'"
            try old.write { db in
                try db.execute(sql: """
                    INSERT INTO users (id, name, password_hash, created_at) VALUES (1, 'alice', 'h', \(stamp));
                    INSERT INTO posts (id, user_id, title, content, created_at, page, weight, photos)
                        VALUES (5, 1, 't', 'c', \(stamp), 1, 9, '');
                    UPDATE users SET post_count = 1, last_post_id = 5, last_post_at = \(stamp);
                    INSERT INTO webmentions (id, user_id, post_id, source, target, status, approved, received_at,
                                             next_attempt_at, verified_at, kind, author_name, content)
                        VALUES (7, 1, 5, 'https://b.example/r', 'http://localhost/alice/5.html', 'verified', 1, \(stamp), \(stamp),
                                \(stamp), 'reply', 'Bo', 'Nice');
                    INSERT INTO webmentions (id, user_id, post_id, source, target, status, approved, received_at,
                                             next_attempt_at, verified_at, kind, origin, actor_id, actor_host)
                        VALUES (9, 1, 5, 'https://m.example/like/1', 'http://localhost/alice/5.html', 'verified', 1, \(stamp),
                                \(stamp), \(stamp), 'like', 'activitypub', 'https://m.example/users/bo', 'm.example');
                    """)
            }
            try old.close()
            let store = try SQLiteStore(path: path)
            defer { try? store.close() }
            let shown = try store.shownWebmentions(postID: 5, offset: 0, limit: 10)
            #expect(shown.map(\.id) == [9, 7])
            #expect(shown.last?.content.text == "Nice" && shown.first?.origin == .activitypub
                    && shown.first?.actorID == "https://m.example/users/bo")
            _ = try #require(try store.trashPost(id: 5, ofUserID: 1, at: Date()))
            #expect(try store.shownWebmentions(postID: 5, offset: 0, limit: 10).isEmpty)
            _ = try #require(try store.restorePost(id: 5, ofUserID: 1))
            #expect(try store.shownWebmentions(postID: 5, offset: 0, limit: 10) == shown)
            // The constraint holds: a row is on a post or on a trashed one.
            #expect(throws: (any Error).self) {
                try store.pool.write { try $0.execute(sql: "UPDATE webmentions SET post_id = NULL WHERE id = 7") }
            }
        }
    }
}
