import Metrics
import BlogModel

extension MetricName {
    /// Webmentions sent, by `outcome`: `sent`, `no_endpoint` (the target
    /// names none), `failed` (for good, given up included), `retry` (due
    /// again later), `dropped` (the author is gone).
    public static let webmentionsSent = "blogd_webmentions_sent_total"
    /// Webmentions given up after their last try (also counted `failed`).
    public static let webmentionsGivenUp = "blogd_webmentions_given_up_total"
}

/// The sender's counters, made once so that /metrics shows them at 0.
final class WebmentionMetrics: Sendable {
    static let shared = WebmentionMetrics()

    let givenUp = Counter(label: MetricName.webmentionsGivenUp)
    private let outcomes: [WebmentionSender.Outcome: Counter]

    private init() {
        let all: [WebmentionSender.Outcome] = [.sent, .noEndpoint, .failed, .retry, .dropped]
        outcomes = Dictionary(uniqueKeysWithValues: all.map {
            ($0, Counter(label: MetricName.webmentionsSent, dimensions: [("outcome", $0.rawValue)]))
        })
    }

    func count(_ outcome: WebmentionSender.Outcome) { outcomes[outcome]?.increment() }
}
