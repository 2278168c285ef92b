import BlogModel
import Foundation
import GRDB

extension SQLiteStore {
    /// Writes `rows` as posts straight into the table in one transaction
    /// (page 1, no photos, the counts kept with the users untouched): for
    /// benchmarks that need a large database fast. The search index is
    /// kept by its triggers, as for any post.
    package func bulkInsertPosts(_ rows: [(user: Int64, title: String, content: String)], at date: Date) throws {
        try pool.write { db in
            let insert = try db.makeStatement(sql: """
                INSERT INTO posts (user_id, title, content, created_at, page, weight) VALUES (?, ?, ?, ?, 1, 100)
                """)
            for row in rows { try insert.execute(arguments: [row.user, row.title, row.content, date.wholeMilliseconds]) }
        }
    }
}
