import BlogModel
import Foundation
import Logging
import PostgresNIO

/// The per-host backoff of the delivery queue: a settle in which a host
/// did not answer moves that host's due deliveries to the retry time, so
/// that they leave the front of the queue (a claim then neither sends to
/// the host again at once nor steps over its rows), in the settle's
/// transaction.
extension PostgresStore {
    /// Holds back each host's deliveries due by the settle's time (by the
    /// index on host and due time). Those due later are under a claim's
    /// lease or waiting out their own backoff: left as they are. Rows
    /// another instance holds locked (its claim or settle under way) are
    /// passed by, not waited for: two settles never wait on each other.
    static func holdBack(_ connection: PostgresConnection, _ hosts: HostsDown, logger: Logger) async throws {
        for (host, hold) in hosts.sorted {
            let until = Milliseconds.of(hold.until), dueBy = Milliseconds.of(hold.dueBy)
            try await connection.query("""
                UPDATE activity_deliveries SET due_at = \(until)
                WHERE id IN (SELECT id FROM activity_deliveries WHERE host = \(host) AND due_at <= \(dueBy)
                             AND due_at < \(until) FOR UPDATE SKIP LOCKED)
                """, logger: logger)
        }
    }
}
