import Metrics
import BlogModel

/// How long registers and logins wait for a hashing thread: the hash
/// lane's queue (its places never make them wait: it admits fewer than
/// it has). The post lane's wait is BlogServer's.
package struct HashWaitMetrics: Sendable {
    /// Made once, with its owner (or at first use), from the metrics system then in force.
    package static let shared = HashWaitMetrics()

    package let wait = Timer(label: MetricName.laneWait, dimensions: [("lane", "hash")])
}
