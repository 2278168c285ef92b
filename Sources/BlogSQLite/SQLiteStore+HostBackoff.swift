import BlogModel
import Foundation
import GRDB

/// The per-host backoff of the delivery queue: a settle in which a host
/// did not answer moves that host's due deliveries to the retry time, so
/// that they leave the front of the queue (a claim then neither sends to
/// the host again at once nor steps over its rows), in the settle's write.
extension SQLiteStore {
    /// Holds back each host's deliveries due by the settle's time (by the
    /// index on host and due time). Those due later are under a claim's
    /// lease or waiting out their own backoff: left as they are.
    static func holdBack(_ db: Database, _ hosts: HostsDown) throws {
        for (host, hold) in hosts.sorted {
            try db.cachedStatement(sql: holdBackHost).execute(arguments: [ms(hold.until), host, ms(hold.dueBy)])
        }
    }

    /// One host's due rows (host, then due by) to a time.
    static let holdBackHost = """
        UPDATE activity_deliveries SET due_at = ?1 WHERE host = ?2 AND due_at <= ?3 AND due_at < ?1
        """
}
