import BlogModel
import Foundation
import Logging
import PostgresNIO

/// The per-server backoff of the delivery queue: a settle in which a
/// server did not answer moves that server's due deliveries to the retry time, so
/// that they leave the front of the queue (a claim then neither sends to
/// the host again at once nor steps over its rows), in the settle's
/// transaction.
extension PostgresStore {
    /// Holds back each server's deliveries due by the settle's time (by
    /// the index on host key and due time, then the inbox's origin), at
    /// most `HostsDown.rowsPerHold` each. Those due later are under a
    /// claim's lease or waiting out their own backoff: left as they are.
    /// Rows another instance holds locked (its claim or settle under way)
    /// are passed by, not waited for: two settles never wait on each other.
    /// Returns how many rows it moved.
    static func holdBack(_ connection: PostgresConnection, _ servers: HostsDown, logger: Logger) async throws -> Int {
        var moved = 0
        for (server, hold) in servers.sorted {
            let until = Milliseconds.of(hold.until), dueBy = Milliseconds.of(hold.dueBy)
            let origin = server.origin, path = server.origin + "/", rows = HostsDown.rowsPerHold
            moved += try await connection.query("""
                UPDATE activity_deliveries SET due_at = \(until)
                WHERE id IN (SELECT id FROM activity_deliveries WHERE host = \(server.host) AND due_at <= \(dueBy)
                             AND due_at < \(until) AND (inbox = \(origin) OR left(inbox, length(\(path))) = \(path))
                             LIMIT \(rows) FOR UPDATE SKIP LOCKED)
                RETURNING id
                """, logger: logger).collect().count
        }
        return moved
    }
}
