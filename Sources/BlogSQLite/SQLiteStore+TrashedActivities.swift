import BlogModel
import Foundation
import GRDB

/// A post's activities across the trash, in SQLite: a `Create` no one
/// was sent waits out the trash (it needs no `Delete`, and goes out if
/// the post is restored); a restore takes back the `Delete` not yet sent
/// (docs/activitypub-delivery.md, "A restored post").
extension SQLiteStore {
    /// SQL: a queued `Create` of a post in the trash, not fanned out at
    /// all: the fan-out leaves it (its post renders no body meanwhile).
    static let createWaitingInTrash =
        "(kind = 'create' AND fanned_out_to IS NULL AND post_id IN (SELECT id FROM trashed_posts))"

    /// Whether the post's `Create` is queued and was fanned out to no one:
    /// then no follower knows the post, and trashing it tells no one.
    static func createUntold(_ db: Database, postID: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM activity_queue WHERE post_id = ? AND kind = 'create' AND fanned_out_to IS NULL)
            """, arguments: [postID]) ?? false
    }

    /// Whether the queued activity `id` is a `Create` waiting out the trash.
    static func waitsInTrash(_ db: Database, activityID id: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM activity_queue WHERE id = ? AND \(createWaitingInTrash))",
                          arguments: [id]) ?? false
    }

    /// On restore, before the trashed row goes: the post's `Delete` not
    /// fanned out, and its deliveries never tried (every delivery of the
    /// post made since the trash is the Delete's: its other activities
    /// render nothing while it is trashed). One tried may have arrived:
    /// that follower keeps its tombstone.
    static func takeBackDelete(_ db: Database, postID: Int64) throws {
        try db.execute(sql: "DELETE FROM activity_queue WHERE post_id = ? AND kind = 'delete'", arguments: [postID])
        guard let row = try Row.fetchOne(db, sql: "SELECT trashed_at FROM trashed_posts WHERE id = ?", arguments: [postID])
        else { return }
        let trashed: Date = Date.nearestMillisecond(row[0])
        try db.execute(sql: """
            DELETE FROM activity_deliveries WHERE post_id = ? AND kind = 'post' AND attempts = 0 AND created_at >= ?
            """, arguments: [postID, ms(trashed)])
    }
}
