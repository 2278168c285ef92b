import Metrics
import BlogModel

extension MetricName {
    /// Deliveries of activities to inboxes, by `outcome`: `delivered`,
    /// `retry` (due again later), `given_up` (refused, or tried too long),
    /// `gone` (the inbox answered 410: its followers removed).
    public static let activityDeliveries = "blogd_activity_deliveries_total"
}

/// The delivery worker's counters, made once so that /metrics shows them at 0.
final class ActivityDeliveryMetrics: Sendable {
    static let shared = ActivityDeliveryMetrics()

    private let outcomes: [ActivityDelivery.Outcome: Counter]

    private init() {
        // A host that did not answer is settled as (and counted as) a retry.
        outcomes = Dictionary(uniqueKeysWithValues: ActivityDelivery.Outcome.allCases.filter { $0 != .hostDown }.map {
            ($0, Counter(label: MetricName.activityDeliveries, dimensions: [("outcome", $0.rawValue)]))
        })
    }

    func count(_ outcome: ActivityDelivery.Outcome) { outcomes[outcome]?.increment() }
}
