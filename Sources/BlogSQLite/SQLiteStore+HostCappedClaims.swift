import BlogModel
import Foundation
import GRDB

/// Claims of deliveries bounded per host (`ActivityQueue`): what the
/// sender's window asks for, so that one host's run of deliveries cannot
/// fill it.
extension SQLiteStore {
    public func claimDeliveries(dueBy date: Date, lease: TimeInterval, limit: Int, skippingHosts: Set<String>,
                                perHost: Int) throws(StorageError) -> [OutgoingDelivery] {
        let now = Self.ms(date), until = Self.ms(date + max(0, lease))
        let due = try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM activity_deliveries WHERE due_at <= ?)",
                              arguments: [now]) ?? false
        }
        guard due, limit > 0 else { return [] }
        let skipped = Array(skippingHosts)
        return try gate.pass { () throws(StorageError) in
            try write { db in
                // The first `limit` due of the hosts not skipped, then at
                // most `perHost` of each: one look, in the writer's turn.
                let candidates = try Row.fetchAll(db, sql: Self.cappedCandidates(skipping: skipped.count),
                    arguments: StatementArguments([now] + skipped.map { $0 as any DatabaseValueConvertible } + [limit]))
                var taken: [String: Int] = [:]
                var ids: [Int64] = []
                for row in candidates {
                    let host: String = row[1]
                    guard taken[host, default: 0] < max(1, perHost) else { continue }
                    taken[host, default: 0] += 1
                    ids.append(row[0])
                }
                guard !ids.isEmpty else { return [] }
                return try Row.fetchAll(db, sql: """
                    UPDATE activity_deliveries SET due_at = ?, attempts = attempts + 1
                    WHERE id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))
                    RETURNING \(Self.deliveryColumns)
                    """, arguments: StatementArguments([until] + ids)).map(Self.delivery).sorted { $0.id < $1.id }
            }
        }
    }

    /// The first due rows (due time, then `skipping` hosts, then the
    /// limit as arguments): read in the due index, which carries the
    /// host, so that the rows of the hosts passed by cost an index entry
    /// each, not a look in the table.
    static func cappedCandidates(skipping count: Int) -> String {
        let notSkipped = count == 0 ? "" : "AND host NOT IN (\(Array(repeating: "?", count: count).joined(separator: ", ")))"
        return "SELECT id, host FROM activity_deliveries WHERE due_at <= ? \(notSkipped) ORDER BY due_at, id LIMIT ?"
    }
}
