import Metrics

/// Files of the public folder written, and those that could not be.
struct PageMetrics: Sendable {
    /// Made once, with its owner (or at first use), from the metrics system then in force.
    static let shared = PageMetrics()

    let writes = Counter(label: MetricName.pageWrites)
    let writeErrors = Counter(label: MetricName.pageWriteErrors)
}
