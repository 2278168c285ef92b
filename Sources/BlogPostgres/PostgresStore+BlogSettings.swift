import BlogModel
import BlogWire
import Foundation
import PostgresNIO

/// Blog settings (`blog_settings`, migration 12): one row per user that
/// set any, going with the user by cascade.
extension PostgresStore {
    public func blogSettings(ofUserID userID: Int64) throws(StorageError) -> BlogSettings {
        try rows("""
            SELECT title, description, author_name, author_photo FROM blog_settings WHERE user_id = \(userID)
            """) { row in
            let (title, description, name, photo) = try row.decode((String?, String?, String?, String?).self)
            return BlogSettings(stored: title, description: description, authorName: name, authorPhoto: photo)
        }.first ?? .unset
    }

    /// The newest posts (as `newestPosts(ofUserID:)`) and the settings in
    /// one round trip: a row per post, the settings on the first only (a
    /// row of no post when the blog has none).
    public func newestPostsAndSettings(ofUserID userID: Int64) throws(StorageError)
        -> (posts: [PostStub], settings: BlogSettings) {
        let found = try rows("""
            SELECT CASE WHEN p.n IS NULL OR p.n = 1 THEN s.title END,
                   CASE WHEN p.n IS NULL OR p.n = 1 THEN s.description END,
                   CASE WHEN p.n IS NULL OR p.n = 1 THEN s.author_name END,
                   CASE WHEN p.n IS NULL OR p.n = 1 THEN s.author_photo END,
                   p.id, p.page, p.weight, p.updated
            FROM (SELECT 1) AS one
            LEFT JOIN blog_settings AS s ON s.user_id = \(userID)
            LEFT JOIN LATERAL (
                SELECT id, page, weight, \(unescaped: Milliseconds.select("updated_at")) AS updated,
                       row_number() OVER (ORDER BY page DESC, id DESC) AS n
                FROM posts
                WHERE user_id = \(userID) AND page >= coalesce(
                    (SELECT max(page) FROM posts WHERE user_id = \(userID)
                     AND page < (SELECT max(page) FROM posts WHERE user_id = \(userID))),
                    (SELECT max(page) FROM posts WHERE user_id = \(userID)))
            ) AS p ON true
            ORDER BY p.page DESC, p.id DESC
            """) { row in
            let (title, description, name, photo, id, page, weight, updated) =
                try row.decode((String?, String?, String?, String?, Int64?, Int?, Int?, Int64?).self)
            let settings = BlogSettings(stored: title, description: description, authorName: name, authorPhoto: photo)
            let post = id.map { PostStub(id: $0, page: page ?? 1, weight: weight ?? 0, updatedAt: updated.map(Milliseconds.date)) }
            return (settings, post)
        }
        return (found.compactMap(\.1), found.first?.0 ?? .unset)
    }

    public func setBlogSettings(_ settings: BlogSettings, ofUserID userID: Int64, at date: Date) throws(StorageError) {
        // One statement: committed (durable) when it returns. `::text`: a
        // NULL goes as a value of no type.
        try execute("""
            INSERT INTO blog_settings (user_id, title, description, author_name, author_photo, updated_at)
            VALUES (\(userID), \(settings.title)::text, \(settings.description)::text, \(settings.authorName)::text,
                    \(settings.authorPhoto)::text,
                    timestamptz 'epoch' + \(Milliseconds.of(date)) * interval '1 millisecond')
            ON CONFLICT (user_id) DO UPDATE SET title = excluded.title, description = excluded.description,
                author_name = excluded.author_name, author_photo = excluded.author_photo, updated_at = excluded.updated_at
            """)
    }
}
