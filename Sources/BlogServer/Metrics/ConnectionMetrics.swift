import BlogModel
import BlogLimits
import Metrics

/// The blog port's connections, counted: accepted, open now, refused by
/// reason, evicted for a newcomer.
struct ConnectionMetrics: Sendable {
    /// Made once, with its owner (or at first use), from the metrics system then in force.
    static let shared = ConnectionMetrics()

    let accepted = Counter(label: MetricName.connectionsAccepted)
    let open = Meter(label: MetricName.connectionsOpen)
    /// The table was full (and no idle connection could give its place).
    let refusedOverLimit = Counter(label: MetricName.connectionsRefused, dimensions: [("reason", "limit")])
    /// The address (or IPv6 /64) held its share already.
    let refusedPerAddress = Counter(label: MetricName.connectionsRefused, dimensions: [("reason", "per_address")])
    let evicted = Counter(label: MetricName.connectionsEvicted)

    /// The counters the connection table keeps.
    var admission: AdmissionMetrics {
        AdmissionMetrics(accepted: accepted, refusedOverLimit: refusedOverLimit, refusedPerAddress: refusedPerAddress)
    }
}
