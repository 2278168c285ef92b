import BlogModel
import Foundation
import GRDB

/// The ActivityPub delivery queue in SQLite (`activity_queue`,
/// `activity_deliveries`, migration v20-activitypub): activities queued
/// inside the post paths' own group commits, fanned out and claimed by the
/// one server process that writes the file.
extension SQLiteStore {
    public func queueActivities(_ on: Bool) { activities.set(on) }

    /// Queues `kind` of post `postID` in the caller's transaction, when
    /// queueing is on and the user has an accepted follower (an indexed
    /// look: a blog without followers pays no more).
    static func queueActivity(_ db: Database, _ queueing: ActivityQueueing, userID: Int64, postID: Int64,
                              kind: ActivityKind, at date: Date) throws {
        guard queueing.isOn else { return }
        try db.cachedStatement(sql: """
            INSERT INTO activity_queue (user_id, post_id, kind, queued_at)
            SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM followers WHERE user_id = ?1 AND state = 'accepted')
            """).execute(arguments: [userID, postID, kind.rawValue, ms(date)])
    }

    /// A post taken back was never shown: nothing to tell its followers.
    static func dropActivities(_ db: Database, postID: Int64) throws {
        try db.execute(sql: "DELETE FROM activity_queue WHERE post_id = ?", arguments: [postID])
        try db.execute(sql: "DELETE FROM activity_deliveries WHERE post_id = ?", arguments: [postID])
    }

    public func queuedActivities(limit: Int) throws(StorageError) -> [QueuedActivity] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, user_id, post_id, kind, queued_at FROM activity_queue WHERE NOT \(Self.createWaitingInTrash)
                ORDER BY id LIMIT ?
                """, arguments: [max(0, limit)]).compactMap { row in
                ActivityKind(rawValue: row[3]).map {
                    QueuedActivity(id: row[0], userID: row[1], postID: row[2], kind: $0, queuedAt: Self.date(row[4]))
                }
            }
        }
    }

    public func fanOut(_ activity: QueuedActivity, body: String?, at date: Date) throws(StorageError) -> Int {
        let now = Self.ms(date)
        return try gate.pass { () throws(StorageError) in
            try write { db in
                // A fan-out in steps that stopped midway goes on past its point.
                guard let queued = try Row.fetchOne(db, sql: "SELECT fanned_out_to FROM activity_queue WHERE id = ?",
                                                    arguments: [activity.id]) else { return 0 }
                // Read before its post went to the trash: it waits there.
                if try Self.waitsInTrash(db, activityID: activity.id) { return 0 }
                try db.execute(sql: "DELETE FROM activity_queue WHERE id = ?", arguments: [activity.id])
                guard let body else { return 0 }
                var made = 0
                for target in try Self.deliveryTargets(db, userID: activity.userID, after: queued[0]) {
                    try Self.insertDelivery(db, activity, target, body: body, at: now)
                    made += db.changesCount
                }
                return made
            }
        }
    }

    public func claimDeliveries(dueBy date: Date, lease: TimeInterval,
                                limit: Int) throws(StorageError) -> [OutgoingDelivery] {
        let now = Self.ms(date), until = Self.ms(date + max(0, lease))
        // Most looks find nothing due: a read, not a turn of the writer.
        let due = try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM activity_deliveries WHERE due_at <= ?)",
                              arguments: [now]) ?? false
        }
        guard due else { return [] }
        return try gate.pass { () throws(StorageError) in
            try write { db in
                try Row.fetchAll(db, sql: """
                    UPDATE activity_deliveries SET due_at = ?, attempts = attempts + 1
                    WHERE id IN (SELECT id FROM activity_deliveries WHERE due_at <= ? ORDER BY due_at, id LIMIT ?)
                    RETURNING \(Self.deliveryColumns)
                    """, arguments: [until, now, max(0, limit)]).map(Self.delivery).sorted { $0.id < $1.id }
            }
        }
    }

    public func settleDeliveries(_ results: [(delivery: OutgoingDelivery,
                                              settlement: DeliverySettlement)]) throws(StorageError) {
        guard !results.isEmpty else { return }
        try gate.pass { () throws(StorageError) in
            try write { db in
                var delivered = 0, givenUp = 0
                var hostsDown = HostsDown()
                for (delivery, settlement) in results {
                    let claim: StatementArguments = [delivery.id, delivery.attempts]
                    switch settlement {
                    case .retry(let at):
                        try db.execute(sql: "UPDATE activity_deliveries SET due_at = ? WHERE id = ? AND attempts = ?",
                                       arguments: [Self.ms(at)] + claim)
                    case .hostDown(let at, let now):
                        try db.execute(sql: "UPDATE activity_deliveries SET due_at = ? WHERE id = ? AND attempts = ?",
                                       arguments: [Self.ms(at)] + claim)
                        if db.changesCount > 0 { hostsDown.add(delivery.host, inbox: delivery.inbox, retryAt: at, now: now) }
                    case .done, .givenUp:
                        try db.execute(sql: "DELETE FROM activity_deliveries WHERE id = ? AND attempts = ?", arguments: claim)
                        if settlement == .done { delivered += db.changesCount } else { givenUp += db.changesCount }
                    }
                    if BlockNotice.wakesUndo(delivery) {
                        try db.cachedStatement(sql: Self.wakeUndo).execute(arguments: [
                            BlockNotice.undoActivityID(userID: delivery.userID, block: delivery.activityID), delivery.inbox,
                        ])
                    }
                }
                let heldBack = try Self.holdBack(db, hostsDown)
                for (name, count) in [("delivered", delivered), ("given_up", givenUp), ("held_back", heldBack)]
                where count > 0 {
                    try db.execute(sql: """
                        INSERT INTO activity_delivery_totals (name, total) VALUES (?1, ?2)
                        ON CONFLICT (name) DO UPDATE SET total = total + ?2
                        """, arguments: [name, count])
                }
            }
        }
    }

    public func queuedDeliveries(limit: Int) throws(StorageError) -> [OutgoingDelivery] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.deliveryColumns) FROM activity_deliveries ORDER BY due_at, id LIMIT ?
                """, arguments: [max(0, limit)]).map(Self.delivery)
        }
    }

    public func deliveryCounts() throws(StorageError) -> DeliveryCounts {
        try read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT (SELECT COUNT(*) FROM activity_queue), (SELECT COUNT(*) FROM activity_deliveries),
                       coalesce((SELECT total FROM activity_delivery_totals WHERE name = 'delivered'), 0),
                       coalesce((SELECT total FROM activity_delivery_totals WHERE name = 'given_up'), 0),
                       coalesce((SELECT total FROM activity_delivery_totals WHERE name = 'held_back'), 0)
                """)
            guard let row else { return DeliveryCounts(queuedActivities: 0, queuedDeliveries: 0, delivered: 0, givenUp: 0) }
            return DeliveryCounts(queuedActivities: row[0], queuedDeliveries: row[1], delivered: row[2], givenUp: row[3],
                                  heldBack: row[4])
        }
    }

    /// An Undo that waited for its Block's send (`BlockNotice`) is due
    /// when it was queued.
    static let wakeUndo = """
        UPDATE activity_deliveries SET due_at = created_at
        WHERE activity_id = ? AND inbox = ? AND attempts = 0 AND due_at > created_at
        """

    static let deliveryColumns =
        "id, activity_id, user_id, post_id, inbox, host, body, attempts, due_at, created_at, kind"

    static func delivery(_ row: Row) -> OutgoingDelivery {
        OutgoingDelivery(id: row[0], activityID: row[1], userID: row[2], postID: row[3], inbox: row[4], host: row[5],
                         body: row[6], attempts: row[7], due: date(row[8]), createdAt: date(row[9]),
                         kind: DeliveryKind(rawValue: row[10]) ?? .post)
    }
}
