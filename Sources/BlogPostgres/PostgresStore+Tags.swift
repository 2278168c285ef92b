import BlogModel
import Foundation
import Logging
import PostgresNIO

/// Tags in PostgreSQL (`post_tags`, migration 12).
extension PostgresStore {
    /// Sets the tags of post `postID` to `tags`, inside the caller's
    /// transaction (the post's insert, edit or restore): one statement.
    static func writeTags(_ connection: PostgresConnection, postID: Int64, userID: Int64, tags: [String],
                          replacing: Bool = false, logger: Logger) async throws {
        if replacing {
            try await connection.query("DELETE FROM post_tags WHERE post_id = \(postID)", logger: logger)
        }
        guard !tags.isEmpty else { return }
        try await connection.query("""
            INSERT INTO post_tags (post_id, tag, user_id) SELECT \(postID), tag, \(userID) FROM unnest(\(tags)) AS tag
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Down `post_tags_by_tag` (or `post_tags_by_blog`) from `before`,
    /// each post then by its key, in one round trip.
    public func taggedPosts(_ tag: String, ofUserID userID: Int64?, before: Int64?,
                            limit: Int) throws(StorageError) -> [AuthoredPost] {
        let before = before ?? Int64.max
        return try rows("""
            SELECT \(unescaped: Self.postColumns), (SELECT name FROM users WHERE users.id = posts.user_id)
            FROM posts WHERE id IN (
                SELECT post_id FROM post_tags
                WHERE tag = \(tag) AND (\(userID)::bigint IS NULL OR user_id = \(userID)) AND post_id < \(before)
                ORDER BY post_id DESC LIMIT \(limit))
            ORDER BY id DESC
            """, Self.authoredPost)
    }

    /// A loose index scan down `post_tags_by_blog` (a recursive step a
    /// tag), so a tag on 10,000 posts costs one step.
    public func tags(ofUserID userID: Int64, prefix: String, limit: Int) throws(StorageError) -> [String] {
        try rows("""
            WITH RECURSIVE found(tag, n) AS (
                (SELECT tag, 1 FROM post_tags WHERE user_id = \(userID) AND tag >= \(prefix) ORDER BY tag LIMIT 1)
                UNION ALL
                SELECT (SELECT p.tag FROM post_tags p WHERE p.user_id = \(userID) AND p.tag > found.tag ORDER BY p.tag LIMIT 1),
                       n + 1
                FROM found WHERE found.tag IS NOT NULL AND n < \(limit))
            SELECT tag FROM found WHERE tag IS NOT NULL AND starts_with(tag, \(prefix)) ORDER BY tag
            """) { try $0.decode(String.self) }
    }

    /// A row of `postColumns` and the author's name.
    @Sendable static func authoredPost(_ row: PostgresRow) throws -> AuthoredPost {
        let (id, userID, title, content, created, page, weight, updated, latitude, longitude, photos, html, categories,
             author) = try row.decode((Int64, Int64, String, String, Int64, Int, Int, Int64?, String?, String?, String,
                                       String?, String, String).self)
        let post = PostRecord(id: id, userID: userID, title: title, content: content, createdAt: Milliseconds.date(created),
                              page: page, weight: weight, updatedAt: updated.map(Milliseconds.date),
                              place: place(latitude, longitude), photos: PostPhoto.photos(columnText: photos),
                              contentHTML: html, categories: categories.split(separator: " ").map(String.init))
        return AuthoredPost(post: post, author: author)
    }
}
