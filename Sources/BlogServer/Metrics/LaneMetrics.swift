import BlogModel
import Metrics

/// The lanes, measured: requests in each, and how long a post waited for
/// a place (the hash lane's wait, for a hashing thread, is BlogCore's).
struct LaneMetrics: Sendable {
    /// Made once, with its owner (or at first use), from the metrics system then in force.
    static let shared = LaneMetrics()

    let hashDepth = Meter(label: MetricName.laneDepth, dimensions: [("lane", "hash")])
    let postDepth = Meter(label: MetricName.laneDepth, dimensions: [("lane", "post")])
    let postWait = Timer(label: MetricName.laneWait, dimensions: [("lane", "post")])
}
