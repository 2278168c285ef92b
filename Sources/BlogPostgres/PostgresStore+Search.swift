import BlogModel
import Foundation
import PostgresNIO

/// Search in PostgreSQL (`posts.search`, GIN, migration 13).
extension PostgresStore {
    /// The newest `SearchQuery.candidates` matches by the GIN index (ids
    /// only), then those ranked (`ts_rank`), in one round trip. The terms
    /// go to `plainto_tsquery` as a bound value: plain words, no syntax.
    public func searchPosts(_ query: SearchQuery, ofUserID userID: Int64?, offset: Int,
                            limit: Int) throws(StorageError) -> [AuthoredPost] {
        let offset = max(0, offset), limit = max(0, min(limit, SearchQuery.candidates - offset))
        guard limit > 0 else { return [] }
        let words = query.terms.joined(separator: " ")
        return try rows("""
            SELECT \(unescaped: Self.postColumns), (SELECT name FROM users WHERE users.id = posts.user_id)
            FROM posts JOIN (
                SELECT id FROM posts
                WHERE search @@ plainto_tsquery('simple', \(words)) AND (\(userID)::bigint IS NULL OR user_id = \(userID))
                ORDER BY id DESC LIMIT \(SearchQuery.candidates)) candidates USING (id)
            ORDER BY ts_rank(search, plainto_tsquery('simple', \(words))) DESC, id DESC
            LIMIT \(limit) OFFSET \(offset)
            """, Self.authoredPost)
    }
}
