import Foundation

/// The hosts a settle of deliveries found not answering
/// (`DeliverySettlement.hostDown`), and how far each one's due deliveries
/// are held back: to the latest retry time of its failures in the settle
/// (the try that failed most often says most about the host), those due
/// by the settle's time. The stores apply it in the settle's own write.
public struct HostsDown: Sendable {
    /// One host's hold: its deliveries due by `dueBy` become due at `until`.
    public struct Hold: Sendable, Equatable {
        public var until: Date
        public var dueBy: Date
    }

    /// By delivery host key.
    public private(set) var holds: [String: Hold] = [:]

    public init() {}

    /// `host` did not answer a delivery now due again at `retryAt`.
    public mutating func add(_ host: String, retryAt: Date, now: Date) {
        let hold = holds[host]
        holds[host] = Hold(until: max(retryAt, hold?.until ?? retryAt), dueBy: max(now, hold?.dueBy ?? now))
    }

    /// The holds in the order of their hosts (one lock order for all writers).
    public var sorted: [(host: String, hold: Hold)] {
        holds.sorted { $0.key < $1.key }.map { (host: $0.key, hold: $0.value) }
    }
}
