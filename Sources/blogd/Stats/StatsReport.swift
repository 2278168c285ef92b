import BlogModel
import Foundation

/// `blogd stats`'s table: the figures of `/metrics` in a few lines, for a
/// look without Prometheus or Grafana. Pure: samples in, text out.
///
///     print(StatsReport(samples: PrometheusText.samples(in: text)).text)
struct StatsReport {
    let samples: [Sample]

    var text: String {
        [requests, latency, connections, lanes, storage].joined(separator: "\n")
    }

    // MARK: Sections

    /// Requests by command and reply, those that happened, by command.
    private var requests: String {
        let rows = samples.filter { $0.name == MetricName.requests && $0.value > 0 }
            .map { (command: $0.labels["command"] ?? "?", reply: $0.labels["reply"] ?? "?", count: $0.value) }
            .sorted { ($0.command, $0.reply) < ($1.command, $1.reply) }
        var lines = ["requests"]
        if rows.isEmpty { lines.append("  none yet") }
        for row in rows {
            lines.append("  " + Self.pad(row.command, 10) + Self.pad(row.reply, 10) + Self.count(row.count, 9))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Latency by command, from the histogram's buckets.
    private var latency: String {
        let commands = samples.filter { $0.name == MetricName.requestDuration + "_count" && $0.value > 0 }
            .compactMap { $0.labels["command"] }.sorted()
        var lines = ["latency (ms)" + Self.right("count", 19) + Self.right("p50", 9) + Self.right("p99", 9)]
        if commands.isEmpty { lines.append("  none yet") }
        for command in commands {
            let buckets = HistogramQuantile.buckets(of: MetricName.requestDuration, labels: ["command": command], in: samples)
            let count = buckets.map(\.count).max() ?? 0
            lines.append("  " + Self.pad(command, 10) + Self.count(count, 19)
                         + Self.right(Self.milliseconds(0.5, buckets), 9) + Self.right(Self.milliseconds(0.99, buckets), 9))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private var connections: String {
        let refused = ["limit", "per_address"].map { value(MetricName.connectionsRefused, ["reason": $0]) }
        return "connections: " + [
            "\(Self.whole(value(MetricName.connectionsOpen))) open",
            "\(Self.whole(value(MetricName.connectionsAccepted))) accepted",
            "\(Self.whole(refused[0])) refused over the limit",
            "\(Self.whole(refused[1])) per address",
            "\(Self.whole(value(MetricName.connectionsEvicted))) evicted",
        ].joined(separator: ", ") + "\n"
    }

    private var lanes: String {
        var parts: [String] = []
        for lane in ["hash", "post"] {
            let waits = HistogramQuantile.buckets(of: MetricName.laneWait, labels: ["lane": lane], in: samples)
            parts.append("\(lane) \(Self.whole(value(MetricName.laneDepth, ["lane": lane]))) in the lane, "
                         + "wait p50 \(Self.milliseconds(0.5, waits)) ms, p99 \(Self.milliseconds(0.99, waits)) ms")
        }
        let budgets = ["hashes", "post_bytes", "hash_lane"].map {
            "\($0) \(Self.whole(value(MetricName.budgetRefusals, ["budget": $0])))"
        }
        return "lanes: " + parts.joined(separator: "; ") + "\n"
            + "refused by a budget: " + budgets.joined(separator: ", ") + "\n"
    }

    private var storage: String {
        let batches = HistogramQuantile.buckets(of: MetricName.groupCommitBatchSize, in: samples)
        let errors = samples.filter { $0.name == MetricName.storageErrors && $0.value > 0 }
            .map { "\($0.labels["kind"] ?? "?") \(Self.whole($0.value))" }.sorted()
        return "commits: \(Self.whole(value(MetricName.groupCommits))) (writes each: p50 \(Self.atMost(0.5, batches)), "
            + "p99 \(Self.atMost(0.99, batches))), \(Self.whole(value(MetricName.groupCommitFailures))) failed\n"
            + "pages written: \(Self.whole(value(MetricName.pageWrites))), "
            + "\(Self.whole(value(MetricName.pageWriteErrors))) failed\n"
            + "storage: \(errors.isEmpty ? "no errors" : "errors " + errors.joined(separator: ", ")), "
            + "\(Self.whole(value(MetricName.storageDeadlines))) deadlines hit\n"
    }

    // MARK: Reading and formatting

    /// The sum of `name`'s samples with these labels (0 when none).
    private func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
        samples.filter { sample in
            sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }.reduce(0) { $0 + $1.value }
    }

    private static func milliseconds(_ quantile: Double, _ buckets: [(bound: Double, count: Double)]) -> String {
        switch HistogramQuantile.estimate(quantile, buckets: buckets) {
        case nil: "-"
        case .value(let seconds): decimal(seconds * 1000)
        case .above(let seconds): ">" + decimal(seconds * 1000)
        }
    }

    /// "at most N" for a count: the bound of its bucket.
    private static func atMost(_ quantile: Double, _ buckets: [(bound: Double, count: Double)]) -> String {
        switch HistogramQuantile.bound(quantile, buckets: buckets) {
        case nil: "-"
        case .value(let value): "<=" + decimal(value)
        case .above(let value): ">" + decimal(value)
        }
    }

    /// Three significant figures or so, without a trailing `.0`.
    private static func decimal(_ value: Double) -> String {
        let rounded = value >= 100 ? value.rounded() : value >= 10 ? (value * 10).rounded() / 10 : (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    private static func whole(_ value: Double) -> String {
        value.isFinite ? String(Int(value.rounded())) : "?"
    }

    private static func count(_ value: Double, _ width: Int) -> String { right(whole(value), width) }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func right(_ text: String, _ width: Int) -> String {
        text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
    }
}
