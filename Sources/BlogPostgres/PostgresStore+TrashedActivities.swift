import BlogModel
import Foundation
import Logging
import PostgresNIO

/// A post's activities across the trash, in PostgreSQL: a `Create` no
/// one was sent waits out the trash (it needs no `Delete`, and goes out
/// if the post is restored); a restore takes back the `Delete` not yet
/// sent (docs/activitypub-delivery.md, "A restored post").
extension PostgresStore {
    /// SQL: a queued `Create` of a post in the trash, not fanned out at
    /// all: the fan-out leaves it (its post renders no body meanwhile).
    static let createWaitingInTrash =
        "(kind = 'create' AND fanned_out_to IS NULL AND post_id IN (SELECT id FROM trashed_posts))"

    /// Whether the post's `Create` is queued and was fanned out to no one:
    /// then no follower knows the post, and trashing it tells no one. It
    /// locks that row: a fan-out of it under way ends first (and then it
    /// is no longer untold), or waits for the trash and leaves it.
    static func createUntold(_ connection: PostgresConnection, postID: Int64, logger: Logger) async throws -> Bool {
        try await connection.query("""
            SELECT id FROM activity_queue WHERE post_id = \(postID) AND kind = 'create' AND fanned_out_to IS NULL
            FOR UPDATE
            """, logger: logger).collect().isEmpty == false
    }

    /// Whether the queued activity `id` is a `Create` waiting out the
    /// trash; asked after locking the activity, in a statement of its own
    /// (so it sees a trash that committed while it waited).
    static func waitsInTrash(_ connection: PostgresConnection, activityID id: Int64, logger: Logger) async throws -> Bool {
        try await connection.query("""
            SELECT id FROM activity_queue WHERE id = \(id) AND \(unescaped: createWaitingInTrash)
            """, logger: logger).collect().isEmpty == false
    }

    /// On restore, before the trashed row goes: the post's `Delete` not
    /// fanned out, and its deliveries never tried (every delivery of the
    /// post made since the trash is the Delete's: its other activities
    /// render nothing while it is trashed). One tried may have arrived:
    /// that follower keeps its tombstone.
    static func takeBackDelete(_ connection: PostgresConnection, postID: Int64, logger: Logger) async throws {
        try await connection.query("DELETE FROM activity_queue WHERE post_id = \(postID) AND kind = 'delete'",
                                   logger: logger)
        try await connection.query("""
            DELETE FROM activity_deliveries
            WHERE post_id = \(postID) AND kind = 'post' AND attempts = 0
              AND created_at >= (SELECT \(unescaped: Milliseconds.select("trashed_at")) FROM trashed_posts
                                 WHERE id = \(postID))
            """, logger: logger)
    }
}
