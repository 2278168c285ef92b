import BlogModel
import Metrics

/// Requests refused `err:BUSY` by a budget, by which.
struct BudgetMetrics: Sendable {
    /// Made once, with its owner (or at first use), from the metrics system then in force.
    static let shared = BudgetMetrics()

    /// The address's password hashes per second.
    let hashes = Counter(label: MetricName.budgetRefusals, dimensions: [("budget", "hashes")])
    /// The address's bytes of posts per second.
    let postBytes = Counter(label: MetricName.budgetRefusals, dimensions: [("budget", "post_bytes")])
    /// The hashing work the hash lane may hold.
    let hashLane = Counter(label: MetricName.budgetRefusals, dimensions: [("budget", "hash_lane")])
}
