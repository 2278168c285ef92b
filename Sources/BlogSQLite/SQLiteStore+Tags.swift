import BlogModel
import Foundation
import GRDB

/// Tags in SQLite (`post_tags`, migration v14).
extension SQLiteStore {
    /// Sets the tags of post `postID` to `tags`, inside the caller's
    /// transaction (the post's insert, edit or restore).
    static func writeTags(_ db: Database, postID: Int64, userID: Int64, tags: [String], replacing: Bool = false) throws {
        if replacing {
            try db.cachedStatement(sql: "DELETE FROM post_tags WHERE post_id = ?").execute(arguments: [postID])
        }
        guard !tags.isEmpty else { return }
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO post_tags (post_id, tag, user_id) VALUES (?, ?, ?)")
        for tag in tags { try insert.execute(arguments: [postID, tag, userID]) }
    }

    /// `categories` as the column keeps them.
    static func categoriesColumn(_ categories: [String]) -> String {
        categories.joined(separator: " ")
    }

    /// Down `post_tags_by_tag` (or `post_tags_by_blog`) from `before`,
    /// each post then by its key.
    public func taggedPosts(_ tag: String, ofUserID userID: Int64?, before: Int64?,
                            limit: Int) throws(StorageError) -> [AuthoredPost] {
        let before = before ?? Int64.max
        return try read { db in
            let sql = userID == nil
                ? "SELECT post_id FROM post_tags WHERE tag = ? AND post_id < ? ORDER BY post_id DESC LIMIT ?"
                : "SELECT post_id FROM post_tags WHERE user_id = ? AND tag = ? AND post_id < ? ORDER BY post_id DESC LIMIT ?"
            let arguments: StatementArguments = userID.map { [$0, tag, before, limit] } ?? [tag, before, limit]
            let ids = try Int64.fetchAll(db, sql: sql, arguments: arguments)
            return try Self.authoredPosts(db, ids: ids)
        }
    }

    /// Each step finds the next tag above the last (a seek down
    /// `post_tags_by_blog`), so a tag on 10,000 posts costs one step.
    public func tags(ofUserID userID: Int64, prefix: String, limit: Int) throws(StorageError) -> [String] {
        try read { db in
            var tags: [String] = []
            var last = prefix
            let next = try db.cachedStatement(sql: "SELECT min(tag) FROM post_tags WHERE user_id = ? AND tag > ?")
            if let exact = try String.fetchOne(db, sql: "SELECT tag FROM post_tags WHERE user_id = ? AND tag = ? LIMIT 1",
                                               arguments: [userID, prefix]), !prefix.isEmpty {
                tags.append(exact)
            }
            while tags.count < limit, let tag = try String.fetchOne(next, arguments: [userID, last]), tag.hasPrefix(prefix) {
                tags.append(tag)
                last = tag
            }
            return tags
        }
    }

    /// The posts of `ids` with their authors, in the order of `ids`.
    static func authoredPosts(_ db: Database, ids: [Int64]) throws -> [AuthoredPost] {
        guard !ids.isEmpty else { return [] }
        let rows = try Row.fetchAll(db, sql: """
            SELECT p.*, u.name AS author FROM posts p JOIN users u ON u.id = p.user_id
            WHERE p.id IN (\(marks(ids.count)))
            """, arguments: StatementArguments(ids))
        var byID: [Int64: AuthoredPost] = [:]
        for row in rows {
            let post = try PostRecord(row: row)
            byID[post.id] = AuthoredPost(post: post, author: row["author"])
        }
        return ids.compactMap { byID[$0] }
    }
}
