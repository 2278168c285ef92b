import BlogModel
import Foundation
import PostgresNIO

/// The fan-out in chunks (`ActivityQueue.fanOutStep`, migration 22): each
/// step one transaction, which reads the next chunk of followers itself
/// (so one removed or blocked meanwhile gets nothing more), the point the
/// fan-out reached kept on the activity's row, which the step locks:
/// another instance's step waits for this one's commit, then (READ
/// COMMITTED: the lock's wait ends with the row as committed) goes on
/// from the point it left, reading the followers in a snapshot newer than
/// that commit.
extension PostgresStore {
    public func fanOutStep(_ activity: QueuedActivity, body: String, rows: Int,
                           at date: Date) throws(StorageError) -> FanOutStep {
        let now = Milliseconds.of(date), rows = max(1, rows)
        return try transaction { [logger] connection in
            var points: [String?] = []
            for try await point in try await connection.query(
                "SELECT fanned_out_to FROM activity_queue WHERE id = \(activity.id) FOR UPDATE",
                logger: logger).decode(String?.self) {
                points.append(point)
            }
            guard let point = points.first else { return FanOutStep(made: 0, done: true) }
            // Rendered before its post went to the trash: it waits there.
            if try await Self.waitsInTrash(connection, activityID: activity.id, logger: logger) {
                return FanOutStep(made: 0, done: true)
            }
            // One more than the chunk: whether any is left after it.
            let next = try await Self.deliveryTargets(connection, userID: activity.userID, after: point,
                                                      limit: rows + 1, logger: logger)
            let chunk = next.prefix(rows)
            var made = 0
            if !chunk.isEmpty {
                let inboxes = chunk.map(\.inbox), hosts = chunk.map(\.host)
                made = try await connection.query("""
                    INSERT INTO activity_deliveries (activity_id, user_id, post_id, inbox, host, body, due_at, created_at)
                    SELECT \(activity.id), \(activity.userID), \(activity.postID), t.inbox, t.host, \(body), \(now), \(now)
                    FROM unnest(\(inboxes)::text[], \(hosts)::text[]) AS t(inbox, host)
                    ON CONFLICT (activity_id, inbox) DO NOTHING RETURNING id
                    """, logger: logger).collect().count
            }
            if next.count <= rows {
                try await connection.query("DELETE FROM activity_queue WHERE id = \(activity.id)", logger: logger)
                return FanOutStep(made: made, done: true)
            }
            let last = chunk.last!.inbox
            try await connection.query("UPDATE activity_queue SET fanned_out_to = \(last) WHERE id = \(activity.id)",
                                       logger: logger)
            return FanOutStep(made: made, done: false)
        }
    }
}
