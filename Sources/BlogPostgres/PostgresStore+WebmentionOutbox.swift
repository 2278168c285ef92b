import BlogModel
import Foundation
import Logging
import PostgresNIO

/// The Webmention outbox in PostgreSQL (`webmention_outbox`, migration
/// 12): rows queued inside the post paths' own transactions, and claimed
/// with `FOR UPDATE SKIP LOCKED` and a lease, so that with several
/// instances on one database each row is sent by one of them.
extension PostgresStore {
    public func queueWebmentions(with links: MentionLinks) { mentions.set(links) }
    public func holdWebmentions(ofUserID userID: Int64) { heldMentions.hold(userID) }
    public func releaseWebmentions(ofUserID userID: Int64) { heldMentions.release(userID) }

    /// Queues a Webmention to each of `targets` for post `postID`, in the
    /// caller's transaction; one already queued is due at once again.
    static func queueMentions(_ connection: PostgresConnection, _ targets: [String], postID: Int64, userID: Int64,
                              logger: Logger) async throws {
        guard !targets.isEmpty else { return }
        try await connection.query("""
            INSERT INTO webmention_outbox (post_id, user_id, target)
            SELECT \(postID), \(userID), target FROM unnest(\(targets)::text[]) AS target
            ON CONFLICT (post_id, target) DO UPDATE
                SET attempts = 0, due_at = 0, version = webmention_outbox.version + 1
            """, logger: logger)
    }

    /// The text of post `id`, read in the caller's transaction (an edit's
    /// old links).
    static func content(_ connection: PostgresConnection, postID: Int64, logger: Logger) async throws -> String {
        for try await text in try await connection.query("SELECT content FROM posts WHERE id = \(postID)",
                                                         logger: logger).decode(String.self) {
            return text
        }
        return ""
    }

    /// A post taken back was never shown: nothing to tell anyone.
    static func dropMentions(_ connection: PostgresConnection, postID: Int64, logger: Logger) async throws {
        try await connection.query("DELETE FROM webmention_outbox WHERE post_id = \(postID)", logger: logger)
    }

    public func claimWebmentions(dueBy date: Date, lease: TimeInterval,
                                 limit: Int) throws(StorageError) -> [OutgoingWebmention] {
        let now = Milliseconds.of(date), until = Milliseconds.of(date + max(0, lease))
        // Users whose pages do not show their last change yet wait (`WebmentionHolds`).
        let held = heldMentions.userIDs
        return try rows("""
            UPDATE webmention_outbox SET due_at = \(until), attempts = attempts + 1
            WHERE id IN (SELECT id FROM webmention_outbox WHERE due_at <= \(now)
                           AND NOT (user_id = ANY(\(held)::bigint[])) ORDER BY due_at, id
                         LIMIT \(max(0, limit)) FOR UPDATE SKIP LOCKED)
            RETURNING \(unescaped: Self.outboxColumns)
            """, Self.mention).sorted { $0.id < $1.id }
    }

    public func finishWebmention(_ mention: OutgoingWebmention) throws(StorageError) {
        try execute("DELETE FROM webmention_outbox WHERE id = \(mention.id) AND version = \(mention.version)")
    }

    public func retryWebmention(_ mention: OutgoingWebmention, at date: Date) throws(StorageError) {
        try execute("""
            UPDATE webmention_outbox SET due_at = \(Milliseconds.of(date))
            WHERE id = \(mention.id) AND version = \(mention.version)
            """)
    }

    public func queuedWebmentions(limit: Int) throws(StorageError) -> [OutgoingWebmention] {
        try rows("""
            SELECT \(unescaped: Self.outboxColumns) FROM webmention_outbox ORDER BY due_at, id LIMIT \(max(0, limit))
            """, Self.mention)
    }

    private static let outboxColumns = "id, post_id, user_id, target, attempts, version, due_at"

    @Sendable private static func mention(_ row: PostgresRow) throws -> OutgoingWebmention {
        let (id, postID, userID, target, attempts, version, due) =
            try row.decode((Int64, Int64, Int64, String, Int, Int64, Int64).self)
        return OutgoingWebmention(id: id, postID: postID, userID: userID, target: target, attempts: attempts,
                                  version: version, due: Milliseconds.date(due))
    }
}
