import BlogModel
import Foundation
import GRDB

/// Search in SQLite (`posts_search`, FTS5, migration v15).
extension SQLiteStore {
    /// The newest `SearchQuery.candidates` matches in rowid order (FTS5
    /// walks its doclists that way and stops there), each with its bm25,
    /// then ranked; the posts read by key.
    public func searchPosts(_ query: SearchQuery, ofUserID userID: Int64?, offset: Int,
                            limit: Int) throws(StorageError) -> [AuthoredPost] {
        let offset = max(0, offset), limit = max(0, min(limit, SearchQuery.candidates - offset))
        guard limit > 0 else { return [] }
        return try read { db in
            let blog = userID == nil ? "" : "AND rowid IN (SELECT id FROM posts WHERE user_id = ?)"
            var arguments: StatementArguments = [query.fts5]
            if let userID { arguments += [userID] }
            arguments += [SearchQuery.candidates, limit, offset]
            let ids = try Int64.fetchAll(db, sql: """
                SELECT id FROM (
                    SELECT rowid AS id, bm25(posts_search) AS score FROM posts_search
                    WHERE posts_search MATCH ? \(blog)
                    ORDER BY rowid DESC LIMIT ?)
                ORDER BY score, id DESC LIMIT ? OFFSET ?
                """, arguments: arguments)
            return try Self.authoredPosts(db, ids: ids)
        }
    }
}
