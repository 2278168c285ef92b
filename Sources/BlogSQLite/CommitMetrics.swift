import BlogModel
import Metrics

/// The group commit, counted: transactions, the writes each held, how
/// long each held the writer and each write took, and those that failed
/// as a whole.
struct CommitMetrics: Sendable {
    /// Made once, with its owner (or at first use), from the metrics system then in force.
    static let shared = CommitMetrics()

    let commits = Counter(label: MetricName.groupCommits)
    let batchSize = Recorder(label: MetricName.groupCommitBatchSize, aggregate: true)
    let failures = Counter(label: MetricName.groupCommitFailures)
    let duration = Timer(label: MetricName.groupCommitDuration)
    let writeDuration = Timer(label: MetricName.storageWriteDuration)
}
