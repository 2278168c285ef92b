import BlogModel
import Foundation
import GRDB

/// The fan-out in chunks (`ActivityQueue.fanOutStep`, migration
/// v24-fan-out-point): each step one turn of the writer, which reads the
/// next chunk of followers itself (so one removed or blocked meanwhile
/// gets nothing more), the point the fan-out reached kept on the
/// activity's row.
extension SQLiteStore {
    public func fanOutStep(_ activity: QueuedActivity, body: String, rows: Int,
                           at date: Date) throws(StorageError) -> FanOutStep {
        let now = Self.ms(date), rows = max(1, rows)
        return try gate.pass { () throws(StorageError) in
            try write { db in
                guard let queued = try Row.fetchOne(db, sql: "SELECT fanned_out_to FROM activity_queue WHERE id = ?",
                                                    arguments: [activity.id]) else {
                    return FanOutStep(made: 0, done: true)
                }
                // Rendered before its post went to the trash: it waits there.
                if try Self.waitsInTrash(db, activityID: activity.id) { return FanOutStep(made: 0, done: true) }
                // One more than the chunk: whether any is left after it.
                let next = try Self.deliveryTargets(db, userID: activity.userID, after: queued[0], limit: rows + 1)
                let chunk = next.prefix(rows)
                var made = 0
                for target in chunk {
                    try Self.insertDelivery(db, activity, target, body: body, at: now)
                    made += db.changesCount
                }
                if next.count <= rows {
                    try db.execute(sql: "DELETE FROM activity_queue WHERE id = ?", arguments: [activity.id])
                    return FanOutStep(made: made, done: true)
                }
                try db.execute(sql: "UPDATE activity_queue SET fanned_out_to = ? WHERE id = ?",
                               arguments: [chunk.last!.inbox, activity.id])
                return FanOutStep(made: made, done: false)
            }
        }
    }

    static func insertDelivery(_ db: Database, _ activity: QueuedActivity, _ target: DeliveryTarget, body: String,
                               at now: Int64) throws {
        try db.cachedStatement(sql: """
            INSERT INTO activity_deliveries (activity_id, user_id, post_id, inbox, host, body, due_at, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (activity_id, inbox) DO NOTHING
            """).execute(arguments: [activity.id, activity.userID, activity.postID, target.inbox, target.host,
                                     body, now, now])
    }
}
