import BlogModel
import Foundation
import PostgresNIO

/// Claims of deliveries bounded per host (`ActivityQueue`): what the
/// sender's window asks for, so that one host's run of deliveries cannot
/// fill it.
extension PostgresStore {
    public func claimDeliveries(dueBy date: Date, lease: TimeInterval, limit: Int, skippingHosts: Set<String>,
                                perHost: Int) throws(StorageError) -> [OutgoingDelivery] {
        guard limit > 0 else { return [] }
        let now = Milliseconds.of(date), until = Milliseconds.of(date + max(0, lease))
        let skipped = Array(skippingHosts), cap = max(1, perHost)
        return try transaction { [logger] connection in
            // The first `limit` due of the hosts not skipped, locked (another
            // instance's claim passes them by), then at most `cap` of each.
            var taken: [String: Int] = [:]
            var ids: [Int64] = []
            for try await (id, host) in try await connection.query("""
                SELECT id, host FROM activity_deliveries WHERE due_at <= \(now) AND host <> ALL(\(skipped)::text[])
                ORDER BY due_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """, logger: logger).decode((Int64, String).self) {
                guard taken[host, default: 0] < cap else { continue }
                taken[host, default: 0] += 1
                ids.append(id)
            }
            guard !ids.isEmpty else { return [] }
            var claimed: [OutgoingDelivery] = []
            for try await row in try await connection.query("""
                UPDATE activity_deliveries SET due_at = \(until), attempts = attempts + 1 WHERE id = ANY(\(ids)::bigint[])
                RETURNING \(unescaped: Self.deliveryColumns)
                """, logger: logger) {
                claimed.append(try Self.delivery(row))
            }
            return claimed.sorted { $0.id < $1.id }
        }
    }
}
