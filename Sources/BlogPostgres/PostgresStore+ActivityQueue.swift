import BlogModel
import Foundation
import Logging
import PostgresNIO

/// The ActivityPub delivery queue in PostgreSQL (`activity_queue`,
/// `activity_deliveries`, migration 18): activities queued inside the post
/// paths' own transactions; deliveries claimed with `FOR UPDATE SKIP
/// LOCKED` and a lease, so that with several instances on one database
/// each is sent by one of them.
extension PostgresStore {
    public func queueActivities(_ on: Bool) { activities.set(on) }

    /// Queues `kind` of post `postID` in the caller's transaction, when
    /// queueing is on and the user has an accepted follower.
    static func queueActivity(_ connection: PostgresConnection, _ queueing: ActivityQueueing, userID: Int64,
                              postID: Int64, kind: ActivityKind, at milliseconds: Int64, logger: Logger) async throws {
        guard queueing.isOn else { return }
        try await connection.query("""
            INSERT INTO activity_queue (user_id, post_id, kind, queued_at)
            SELECT \(userID), \(postID), \(kind.rawValue), \(milliseconds)
            WHERE EXISTS (SELECT 1 FROM followers WHERE user_id = \(userID) AND state = 'accepted')
            """, logger: logger)
    }

    /// A post taken back was never shown: nothing to tell its followers.
    static func dropActivities(_ connection: PostgresConnection, postID: Int64, logger: Logger) async throws {
        try await connection.query("DELETE FROM activity_queue WHERE post_id = \(postID)", logger: logger)
        try await connection.query("DELETE FROM activity_deliveries WHERE post_id = \(postID)", logger: logger)
    }

    public func queuedActivities(limit: Int) throws(StorageError) -> [QueuedActivity] {
        try rows("""
            SELECT id, user_id, post_id, kind, queued_at FROM activity_queue
            WHERE NOT \(unescaped: Self.createWaitingInTrash) ORDER BY id LIMIT \(max(0, limit))
            """) { row in try row.decode((Int64, Int64, Int64, String, Int64).self) }.compactMap { id, userID, postID, kind, at in
            ActivityKind(rawValue: kind).map {
                QueuedActivity(id: id, userID: userID, postID: postID, kind: $0, queuedAt: Milliseconds.date(at))
            }
        }
    }

    public func fanOut(_ activity: QueuedActivity, body: String?, at date: Date) throws(StorageError) -> Int {
        let now = Milliseconds.of(date)
        return try transaction { [logger] connection in
            // Taking it off locks it: another instance's fan-out of it waits,
            // then finds nothing to take.
            // A fan-out in steps that stopped midway goes on past its point.
            // One that waits out the trash stays (read before its post went).
            var taken: [String?] = []
            for try await point in try await connection.query("""
                DELETE FROM activity_queue WHERE id = \(activity.id) AND NOT \(unescaped: Self.createWaitingInTrash)
                RETURNING fanned_out_to
                """, logger: logger).decode(String?.self) {
                taken.append(point)
            }
            guard let point = taken.first, let body else { return 0 }
            let rest = try await Self.deliveryTargets(connection, userID: activity.userID, after: point, logger: logger)
            let inboxes = rest.map(\.inbox), hosts = rest.map(\.host)
            guard !inboxes.isEmpty else { return 0 }
            return try await connection.query("""
                INSERT INTO activity_deliveries (activity_id, user_id, post_id, inbox, host, body, due_at, created_at)
                SELECT \(activity.id), \(activity.userID), \(activity.postID), t.inbox, t.host, \(body), \(now), \(now)
                FROM unnest(\(inboxes)::text[], \(hosts)::text[]) AS t(inbox, host)
                ON CONFLICT (activity_id, inbox) DO NOTHING RETURNING id
                """, logger: logger).collect().count
        }
    }

    public func claimDeliveries(dueBy date: Date, lease: TimeInterval,
                                limit: Int) throws(StorageError) -> [OutgoingDelivery] {
        let now = Milliseconds.of(date), until = Milliseconds.of(date + max(0, lease))
        return try rows("""
            UPDATE activity_deliveries SET due_at = \(until), attempts = attempts + 1
            WHERE id IN (SELECT id FROM activity_deliveries WHERE due_at <= \(now) ORDER BY due_at, id
                         LIMIT \(max(0, limit)) FOR UPDATE SKIP LOCKED)
            RETURNING \(unescaped: Self.deliveryColumns)
            """, Self.delivery).sorted { $0.id < $1.id }
    }

    public func settleDeliveries(_ results: [(delivery: OutgoingDelivery,
                                              settlement: DeliverySettlement)]) throws(StorageError) {
        guard !results.isEmpty else { return }
        try transaction { [logger] connection in
            var delivered = 0, givenUp = 0
            var hostsDown = HostsDown()
            for (delivery, settlement) in results {
                let (id, attempts) = (delivery.id, delivery.attempts)
                switch settlement {
                case .retry(let at):
                    try await connection.query("""
                        UPDATE activity_deliveries SET due_at = \(Milliseconds.of(at)) WHERE id = \(id) AND attempts = \(attempts)
                        """, logger: logger)
                case .hostDown(let at, let now):
                    let settled = try await connection.query("""
                        UPDATE activity_deliveries SET due_at = \(Milliseconds.of(at)) WHERE id = \(id) AND attempts = \(attempts)
                        RETURNING id
                        """, logger: logger).collect().count
                    if settled > 0 { hostsDown.add(delivery.host, inbox: delivery.inbox, retryAt: at, now: now) }
                case .done, .givenUp:
                    let gone = try await connection.query("""
                        DELETE FROM activity_deliveries WHERE id = \(id) AND attempts = \(attempts) RETURNING id
                        """, logger: logger).collect().count
                    if settlement == .done { delivered += gone } else { givenUp += gone }
                }
                if BlockNotice.wakesUndo(delivery) {
                    // An Undo that waited for this Block's send is due when it was queued.
                    let undo = BlockNotice.undoActivityID(userID: delivery.userID, block: delivery.activityID)
                    try await connection.query("""
                        UPDATE activity_deliveries SET due_at = created_at
                        WHERE activity_id = \(undo) AND inbox = \(delivery.inbox) AND attempts = 0 AND due_at > created_at
                        """, logger: logger)
                }
            }
            let heldBack = try await Self.holdBack(connection, hostsDown, logger: logger)
            for (name, count) in [("delivered", delivered), ("given_up", givenUp), ("held_back", heldBack)]
            where count > 0 {
                try await connection.query("""
                    INSERT INTO activity_delivery_totals (name, total) VALUES (\(name), \(count))
                    ON CONFLICT (name) DO UPDATE SET total = activity_delivery_totals.total + excluded.total
                    """, logger: logger)
            }
        }
    }

    public func queuedDeliveries(limit: Int) throws(StorageError) -> [OutgoingDelivery] {
        try rows("""
            SELECT \(unescaped: Self.deliveryColumns) FROM activity_deliveries ORDER BY due_at, id LIMIT \(max(0, limit))
            """, Self.delivery)
    }

    public func deliveryCounts() throws(StorageError) -> DeliveryCounts {
        let found = try rows("""
            SELECT (SELECT COUNT(*) FROM activity_queue), (SELECT COUNT(*) FROM activity_deliveries),
                   coalesce((SELECT total FROM activity_delivery_totals WHERE name = 'delivered'), 0),
                   coalesce((SELECT total FROM activity_delivery_totals WHERE name = 'given_up'), 0),
                   coalesce((SELECT total FROM activity_delivery_totals WHERE name = 'held_back'), 0)
            """) { try $0.decode((Int64, Int64, Int64, Int64, Int64).self) }
        guard let (activities, deliveries, delivered, givenUp, heldBack) = found.first else {
            return DeliveryCounts(queuedActivities: 0, queuedDeliveries: 0, delivered: 0, givenUp: 0)
        }
        return DeliveryCounts(queuedActivities: Int(activities), queuedDeliveries: Int(deliveries),
                              delivered: Int(delivered), givenUp: Int(givenUp), heldBack: Int(heldBack))
    }

    static let deliveryColumns =
        "id, activity_id, user_id, post_id, inbox, host, body, attempts, due_at, created_at, kind"

    @Sendable static func delivery(_ row: PostgresRow) throws -> OutgoingDelivery {
        let cells = row.makeRandomAccess()
        return OutgoingDelivery(id: try cells[0].decode(Int64.self), activityID: try cells[1].decode(Int64.self),
                                userID: try cells[2].decode(Int64.self), postID: try cells[3].decode(Int64.self),
                                inbox: try cells[4].decode(String.self), host: try cells[5].decode(String.self),
                                body: try cells[6].decode(String.self), attempts: Int(try cells[7].decode(Int32.self)),
                                due: Milliseconds.date(try cells[8].decode(Int64.self)),
                                createdAt: Milliseconds.date(try cells[9].decode(Int64.self)),
                                kind: DeliveryKind(rawValue: try cells[10].decode(String.self)) ?? .post)
    }
}
