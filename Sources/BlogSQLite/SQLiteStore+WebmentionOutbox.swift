import BlogModel
import Foundation
import GRDB

/// The Webmention outbox in SQLite (`webmention_outbox`, migration v14):
/// rows queued inside the post paths' own group commits, claimed by the
/// one server process that writes the file.
extension SQLiteStore {
    public func queueWebmentions(with links: MentionLinks) { mentions.set(links) }
    public func holdWebmentions(ofUserID userID: Int64) { heldMentions.hold(userID) }
    public func releaseWebmentions(ofUserID userID: Int64) { heldMentions.release(userID) }

    /// Queues a Webmention to each of `targets` for post `postID`, in the
    /// caller's transaction; one already queued is due at once again.
    static func queueMentions(_ db: Database, _ targets: [String], postID: Int64, userID: Int64) throws {
        for target in targets {
            try db.cachedStatement(sql: """
                INSERT INTO webmention_outbox (post_id, user_id, target) VALUES (?, ?, ?)
                ON CONFLICT (post_id, target) DO UPDATE SET attempts = 0, due_at = 0, version = version + 1
                """).execute(arguments: [postID, userID, target])
        }
    }

    /// A post taken back was never shown: nothing to tell anyone.
    static func dropMentions(_ db: Database, postID: Int64) throws {
        try db.execute(sql: "DELETE FROM webmention_outbox WHERE post_id = ?", arguments: [postID])
    }

    public func claimWebmentions(dueBy date: Date, lease: TimeInterval,
                                 limit: Int) throws(StorageError) -> [OutgoingWebmention] {
        let now = Self.milliseconds(date), until = Self.milliseconds(date + max(0, lease))
        // Users whose pages do not show their last change yet wait (`WebmentionHolds`).
        let held = heldMentions.userIDs
        let notHeld = held.isEmpty ? "" : " AND user_id NOT IN (SELECT value FROM json_each(?))"
        let heldArgument: [(any DatabaseValueConvertible)?] = held.isEmpty ? [] : ["[" + held.map(String.init).joined(separator: ",") + "]"]
        // Most looks find nothing due: a read, not a turn of the writer.
        let due = try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM webmention_outbox WHERE due_at <= ?\(notHeld))",
                              arguments: StatementArguments([now] + heldArgument)) ?? false
        }
        guard due else { return [] }
        return try gate.pass { () throws(StorageError) in
            try write { db in
                try Row.fetchAll(db, sql: """
                    UPDATE webmention_outbox SET due_at = ?, attempts = attempts + 1
                    WHERE id IN (SELECT id FROM webmention_outbox WHERE due_at <= ?\(notHeld) ORDER BY due_at, id LIMIT ?)
                    RETURNING \(Self.outboxColumns)
                    """, arguments: StatementArguments([until, now] + heldArgument + [max(0, limit)]))
                    .map(Self.mention).sorted { $0.id < $1.id }
            }
        }
    }

    public func finishWebmention(_ mention: OutgoingWebmention) throws(StorageError) {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: "DELETE FROM webmention_outbox WHERE id = ? AND version = ?",
                               arguments: [mention.id, mention.version])
            }
        }
    }

    public func retryWebmention(_ mention: OutgoingWebmention, at date: Date) throws(StorageError) {
        let due = Self.milliseconds(date)
        try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: "UPDATE webmention_outbox SET due_at = ? WHERE id = ? AND version = ?",
                               arguments: [due, mention.id, mention.version])
            }
        }
    }

    public func settleWebmentions(_ results: [(mention: OutgoingWebmention, retryAt: Date?)]) throws(StorageError) {
        guard !results.isEmpty else { return }
        try gate.pass { () throws(StorageError) in
            try write { db in
                for (mention, retryAt) in results {
                    if let retryAt {
                        try db.execute(sql: "UPDATE webmention_outbox SET due_at = ? WHERE id = ? AND version = ?",
                                       arguments: [Self.milliseconds(retryAt), mention.id, mention.version])
                    } else {
                        try db.execute(sql: "DELETE FROM webmention_outbox WHERE id = ? AND version = ?",
                                       arguments: [mention.id, mention.version])
                    }
                }
            }
        }
    }

    public func queuedWebmentions(limit: Int) throws(StorageError) -> [OutgoingWebmention] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.outboxColumns) FROM webmention_outbox ORDER BY due_at, id LIMIT ?",
                             arguments: [max(0, limit)]).map(Self.mention)
        }
    }

    private static let outboxColumns = "id, post_id, user_id, target, attempts, version, due_at"

    private static func mention(_ row: Row) -> OutgoingWebmention {
        OutgoingWebmention(id: row[0], postID: row[1], userID: row[2], target: row[3], attempts: row[4], version: row[5],
                           due: Date(timeIntervalSince1970: Double(row[6] as Int64) / 1000))
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
