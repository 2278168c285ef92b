import Metrics
import BlogModel

/// Files of the public folder written, and those that could not be.
package struct PageMetrics: Sendable {
    /// Made once, with its owner (or at first use), from the metrics system then in force.
    package static let shared = PageMetrics()

    package let writes = Counter(label: MetricName.pageWrites)
    package let writeErrors = Counter(label: MetricName.pageWriteErrors)
}
