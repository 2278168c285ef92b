import BlogModel
import Foundation
import PostgresNIO

/// The sitemap's read of the posts: by id, in batches, along the posts'
/// primary key.
extension PostgresStore {
    public func sitemapPosts(after id: Int64, limit: Int) throws(StorageError) -> [SitemapPost] {
        try rows("""
            SELECT posts.id, users.name, \(unescaped: Milliseconds.select("COALESCE(posts.updated_at, posts.created_at)"))
            FROM posts JOIN users ON users.id = posts.user_id
            WHERE posts.id > \(id) ORDER BY posts.id LIMIT \(max(0, limit))
            """) { row in
            let (id, user, modified) = try row.decode((Int64, String, Int64).self)
            return SitemapPost(id: id, user: user, modified: Milliseconds.date(modified))
        }
    }
}
