import Foundation

/// The servers a settle of deliveries found not answering
/// (`DeliverySettlement.hostDown`), and how far each one's due deliveries
/// are held back: to the latest retry time of its failures in the settle
/// (the try that failed most often says most about the server), those due
/// by the settle's time. The stores apply it in the settle's own write.
///
/// A server is its inboxes' origin (scheme and authority, as the inbox
/// spells it), not their delivery host key: the key puts the names of a
/// wildcard DNS record, and those of owners a short rule cannot tell
/// apart, under one limit of sends at once, but a dead name must not hold
/// back a live one under the same key (`a.x.example` down, `b.x.example`
/// up: `b`'s deliveries go on).
public struct HostsDown: Sendable {
    /// One server's hold: its deliveries due by `dueBy` become due at `until`.
    public struct Hold: Sendable, Equatable {
        public var until: Date
        public var dueBy: Date
    }

    /// A server that did not answer: its deliveries' host key (the index
    /// the hold reads by) and its origin (`https://a.x.example`).
    public struct Server: Sendable, Hashable {
        public var host: String
        public var origin: String
    }

    /// The most deliveries one hold moves in one write: the writer is
    /// held for a few milliseconds, not for a hostile server's 10,000
    /// rows (each with its JSON). What is left stays due, and the next
    /// failed try holds back the next so many.
    public static let rowsPerHold = 200

    public private(set) var holds: [Server: Hold] = [:]

    public init() {}

    /// The server of `inbox` (host key `host`) did not answer a delivery
    /// now due again at `retryAt`.
    public mutating func add(_ host: String, inbox: String, retryAt: Date, now: Date) {
        let server = Server(host: host, origin: ActorHost.origin(of: inbox))
        let hold = holds[server]
        holds[server] = Hold(until: max(retryAt, hold?.until ?? retryAt), dueBy: max(now, hold?.dueBy ?? now))
    }

    /// The holds in the order of their servers (one lock order for all writers).
    public var sorted: [(server: Server, hold: Hold)] {
        holds.sorted { ($0.key.host, $0.key.origin) < ($1.key.host, $1.key.origin) }
            .map { (server: $0.key, hold: $0.value) }
    }
}

extension ActorHost {
    /// `url`'s scheme and authority, as it spells them
    /// (`https://a.x.example:8443/u/inbox` → `https://a.x.example:8443`):
    /// the server a delivery goes to. A URL without `://` is its own.
    public static func origin(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return String(url[..<end])
    }
}
