import BlogModel
import Foundation
import GRDB

/// Received Webmentions in SQLite (`webmentions`, migration
/// v14-webmentions). Times are UTC text to the millisecond, as elsewhere.
/// A trashed post's (`post_id` NULL, `trashed_post_id` set) are read,
/// verified, approved and removed by none of these: they wait, hidden,
/// for the post's restore or purge.
extension SQLiteStore {
    private static let webmentionColumns = """
        id, user_id, post_id, source, target, status, approved, received_at, attempts, next_attempt_at, verified_at,
        kind, author_name, author_url, author_photo, title, content, origin, actor_id
        """

    private static func webmention(_ row: Row) throws -> Webmention {
        let status: String = row[5]
        let kind: String = row[11]
        let origin = Webmention.Origin(rawValue: row[17]) ?? .webmention
        guard let parsedStatus = Webmention.Status(rawValue: status), let parsedKind = Webmention.Kind(rawValue: kind) else {
            // The columns' CHECKs allow no other value.
            throw StorageError.failed("a webmention of unknown status \(status) or kind \(kind)")
        }
        return Webmention(id: row[0], userID: row[1], postID: row[2], source: row[3], target: row[4], status: parsedStatus,
                          approved: row[6], receivedAt: Date.nearestMillisecond(row[7]), attempts: row[8],
                          nextAttemptAt: Date.nearestMillisecond(row[9]),
                          verifiedAt: (row[10] as Date?).map(Date.nearestMillisecond),
                          content: WebmentionContent(kind: parsedKind, authorName: row[12], authorURL: row[13],
                                                     authorPhoto: row[14], title: row[15], text: row[16]),
                          origin: origin, actorID: row[18])
    }

    public func queueWebmention(userID: Int64, postID: Int64, source: String, target: String,
                                at date: Date) throws(StorageError) -> Webmention {
        let date = date.wholeMilliseconds
        // A post (or user) that is gone fails the foreign key: `.unknownUser`.
        return try gate.pass { () throws(StorageError) in
            try write { db in
                let row = try Row.fetchOne(db, sql: """
                    INSERT INTO webmentions (user_id, post_id, source, target, status, received_at, next_attempt_at)
                    VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?5)
                    ON CONFLICT (post_id, source) DO UPDATE SET
                        status = 'queued', target = excluded.target, received_at = excluded.received_at,
                        attempts = 0, next_attempt_at = excluded.next_attempt_at,
                        origin = 'webmention', actor_id = NULL, actor_host = NULL
                    RETURNING \(Self.webmentionColumns)
                    """, arguments: [userID, postID, source, target, date])
                guard let row else { throw StorageError.failed("the insert returned no row") }
                return try Self.webmention(row)
            }
        }
    }

    public func dueWebmentions(at date: Date, limit: Int) throws(StorageError) -> [Webmention] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.webmentionColumns) FROM webmentions
                WHERE status = 'queued' AND next_attempt_at <= ? AND post_id IS NOT NULL
                ORDER BY next_attempt_at, id LIMIT ?
                """, arguments: [date.wholeMilliseconds, limit]).map(Self.webmention)
        }
    }

    public func storeVerification(id: Int64, content: WebmentionContent, at date: Date) throws(StorageError) -> Webmention? {
        let content = content.bounded
        return try gate.pass { () throws(StorageError) in
            try write { db in
                try Row.fetchOne(db, sql: """
                    UPDATE webmentions SET status = 'verified', attempts = 0, verified_at = ?, kind = ?, author_name = ?,
                        author_url = ?, author_photo = ?, title = ?, content = ?
                    WHERE id = ? AND post_id IS NOT NULL RETURNING \(Self.webmentionColumns)
                    """, arguments: [date.wholeMilliseconds, content.kind.rawValue, content.authorName, content.authorURL,
                                     content.authorPhoto, content.title, content.text, id]).map(Self.webmention)
            }
        }
    }

    public func deferVerification(id: Int64, attempts: Int, retryAt: Date) throws(StorageError) {
        _ = try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: "UPDATE webmentions SET attempts = ?, next_attempt_at = ? WHERE id = ?",
                               arguments: [attempts, retryAt.wholeMilliseconds, id])
            }
        }
    }

    public func approveWebmention(id: Int64, ofUserID userID: Int64?) throws(StorageError) -> Webmention? {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try Row.fetchOne(db, sql: """
                    UPDATE webmentions SET approved = 1 WHERE id = ?1 AND (?2 IS NULL OR user_id = ?2) AND post_id IS NOT NULL
                    RETURNING \(Self.webmentionColumns)
                    """, arguments: [id, userID]).map(Self.webmention)
            }
        }
    }

    public func deleteWebmention(id: Int64, ofUserID userID: Int64?) throws(StorageError) -> Webmention? {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try Row.fetchOne(db, sql: """
                    DELETE FROM webmentions WHERE id = ?1 AND (?2 IS NULL OR user_id = ?2) AND post_id IS NOT NULL
                    RETURNING \(Self.webmentionColumns)
                    """, arguments: [id, userID]).map(Self.webmention)
            }
        }
    }

    public func webmention(id: Int64) throws(StorageError) -> Webmention? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.webmentionColumns) FROM webmentions WHERE id = ? AND post_id IS NOT NULL",
                             arguments: [id]).map(Self.webmention)
        }
    }

    public func webmentions(ofUserID userID: Int64?, approved: Bool?, limit: Int) throws(StorageError) -> [Webmention] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.webmentionColumns) FROM webmentions
                WHERE (?1 IS NULL OR user_id = ?1) AND (?2 IS NULL OR approved = ?2) AND post_id IS NOT NULL
                ORDER BY id DESC LIMIT ?3
                """, arguments: [userID, approved, limit]).map(Self.webmention)
        }
    }

    public func shownWebmentions(postID: Int64, offset: Int, limit: Int) throws(StorageError) -> [Webmention] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.webmentionColumns) FROM webmentions
                WHERE post_id = ? AND approved = 1 AND verified_at IS NOT NULL ORDER BY id DESC LIMIT ? OFFSET ?
                """, arguments: [postID, limit, offset]).map(Self.webmention)
        }
    }

    public func shownWebmentionCounts(postID: Int64) throws(StorageError) -> [Webmention.Kind: Int] {
        try read { db in
            var counts: [Webmention.Kind: Int] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT kind, COUNT(*) FROM webmentions
                WHERE post_id = ? AND approved = 1 AND verified_at IS NOT NULL GROUP BY kind
                """, arguments: [postID]) {
                if let kind = Webmention.Kind(rawValue: row[0]) { counts[kind] = row[1] }
            }
            return counts
        }
    }

    public func unapprovedWebmentionCount(ofUserID userID: Int64) throws(StorageError) -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webmentions WHERE user_id = ? AND approved = 0 AND post_id IS NOT NULL",
                             arguments: [userID]) ?? 0
        }
    }

    public func postIDsWithShownWebmentions(ofUserID userID: Int64) throws(StorageError) -> Set<Int64> {
        try read { db in
            Set(try Int64.fetchAll(db, sql: """
                SELECT DISTINCT post_id FROM webmentions
                WHERE user_id = ? AND approved = 1 AND verified_at IS NOT NULL AND post_id IS NOT NULL
                """, arguments: [userID]))
        }
    }
}
