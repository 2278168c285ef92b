import BlogModel
import Foundation
import GRDB

/// The sitemap's read of the posts: by id, in batches, each one statement
/// along the posts' primary key.
extension SQLiteStore {
    public func sitemapPosts(after id: Int64, limit: Int) throws(StorageError) -> [SitemapPost] {
        try readOne { db in
            try Row.fetchAll(db, sql: """
                SELECT posts.id, users.name, COALESCE(posts.updated_at, posts.created_at) AS modified
                FROM posts JOIN users ON users.id = posts.user_id
                WHERE posts.id > ? ORDER BY posts.id LIMIT ?
                """, arguments: [id, max(0, limit)]).map {
                SitemapPost(id: $0[0], user: $0[1], modified: Date.nearestMillisecond($0[2]))
            }
        }
    }
}
