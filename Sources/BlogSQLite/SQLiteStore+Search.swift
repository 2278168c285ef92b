import BlogModel
import Foundation
import GRDB

/// Search in SQLite (`posts_search`, FTS5, migration v15).
extension SQLiteStore {
    /// The newest `SearchQuery.candidates` matches (FTS5 walks its
    /// doclists newest first and stops there), each with its bm25 over
    /// the title and text, then ranked; the posts read by key. One blog's
    /// search adds the blog's token to the query: the index intersects
    /// its list with the words', so a word in most posts of the site costs
    /// a small blog little.
    public func searchPosts(_ query: SearchQuery, ofUserID userID: Int64?, offset: Int,
                            limit: Int) throws(StorageError) -> [AuthoredPost] {
        let offset = max(0, offset), limit = max(0, min(limit, SearchQuery.candidates - offset))
        guard limit > 0 else { return [] }
        // Terms are letters and digits only, quoted besides (`SearchQuery.fts5`).
        var match = "{title content} : (\(query.fts5))"
        if let userID { match = "blog : \"u\(userID)\" AND " + match }
        return try read { db in
            let ids = try Int64.fetchAll(db, sql: """
                SELECT id FROM (
                    SELECT rowid AS id, bm25(posts_search, 1.0, 1.0, 0.0) AS score FROM posts_search
                    WHERE posts_search MATCH ? ORDER BY rowid DESC LIMIT ?)
                ORDER BY score, id DESC LIMIT ? OFFSET ?
                """, arguments: [match, SearchQuery.candidates, limit, offset])
            return try Self.authoredPosts(db, ids: ids)
        }
    }
}
