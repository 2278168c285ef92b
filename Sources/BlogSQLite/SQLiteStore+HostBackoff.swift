import BlogModel
import Foundation
import GRDB

/// The per-server backoff of the delivery queue: a settle in which a
/// server did not answer moves that server's due deliveries to the retry
/// time, so that they leave the front of the queue (a claim then neither
/// sends to the server again at once nor steps over its rows), in the
/// settle's write.
extension SQLiteStore {
    /// Holds back each server's deliveries due by the settle's time (by
    /// the index on host key and due time, then the inbox's origin), at
    /// most `HostsDown.rowsPerHold` each. Those due later are under a
    /// claim's lease or waiting out their own backoff: left as they are.
    /// Returns how many rows it moved.
    static func holdBack(_ db: Database, _ servers: HostsDown) throws -> Int {
        var moved = 0
        for (server, hold) in servers.sorted {
            try db.cachedStatement(sql: holdBackHost).execute(arguments: [
                ms(hold.until), server.host, ms(hold.dueBy), server.origin, server.origin + "/", HostsDown.rowsPerHold,
            ])
            moved += db.changesCount
        }
        return moved
    }

    /// One server's due rows (host key, due by, then origin) to a time.
    static let holdBackHost = """
        UPDATE activity_deliveries SET due_at = ?1 WHERE id IN (
            SELECT id FROM activity_deliveries WHERE host = ?2 AND due_at <= ?3 AND due_at < ?1
            AND (inbox = ?4 OR substr(inbox, 1, length(?5)) = ?5) LIMIT ?6)
        """
}
