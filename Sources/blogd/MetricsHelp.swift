import BlogCore
import BlogModel

/// The `# HELP` line of each of blogd's metrics. swift-metrics carries no
/// help text, so the registry prints only `# TYPE`; `MetricsSetup`
/// puts these in front.
enum MetricsHelp {
    static let http = "blogd_http_requests_total"

    static let texts: [String: String] = [
        MetricName.requests: "Blog-port requests answered, by command and reply.",
        MetricName.requestDuration: "Seconds from a complete blog-port message to its reply, by command.",
        MetricName.connectionsAccepted: "Blog-port connections accepted.",
        MetricName.connectionsOpen: "Blog-port connections open now.",
        MetricName.connectionsRefused: "Blog-port connections refused, by reason (limit, per_address).",
        MetricName.connectionsEvicted: "Idle blog-port connections closed for a newcomer.",
        MetricName.laneDepth: "Requests admitted to a lane (hash, post) and not done.",
        MetricName.laneWait: "Seconds a request waited in its lane before its work started.",
        MetricName.budgetRefusals: "Requests refused by a budget (hashes, post_bytes, hash_lane).",
        MetricName.groupCommits: "SQLite group commits.",
        MetricName.groupCommitBatchSize: "Writes per SQLite group commit.",
        MetricName.groupCommitDuration: "Seconds a SQLite group commit held the writer, fsync included.",
        MetricName.storageWriteDuration: "Seconds a SQLite write took, from being handed in to being on disk.",
        MetricName.groupCommitFailures: "SQLite group commits that failed as a whole and were retried one by one.",
        MetricName.pageWrites: "Files of the public folder written (pages, feeds, the index).",
        MetricName.pageWriteErrors: "Files of the public folder that could not be written.",
        MetricName.storageErrors: "Storage calls that failed, by kind.",
        MetricName.storageDeadlines: "Storage calls that ran out of their deadline.",
        MetricName.webmentionsSent: "Webmentions sent, by outcome (sent, no_endpoint, failed, retry, dropped).",
        MetricName.webmentionsGivenUp: "Webmentions given up after their last try.",
        MetricName.activityDeliveries: "ActivityPub deliveries to inboxes, by outcome (delivered, retry, given_up, gone).",
        http: "Page-server answers (files, web client, Micropub), by method and status code.",
    ]

    /// Said of a metric missing from `texts` (a test checks none is).
    static let unknown = "A metric of blogd."

    /// `text` (Prometheus exposition) with a `# HELP` line before each
    /// `# TYPE` line that has none.
    static func adding(to text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 2048)
        var previous: Substring = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE ") {
                let name = line.dropFirst(7).prefix { $0 != " " }
                if !previous.hasPrefix("# HELP \(name) ") {
                    out += "# HELP \(name) \(texts[String(name)] ?? unknown)\n"
                }
            }
            out += line
            out += "\n"
            previous = line
        }
        // The split gave one empty piece after the last newline.
        if out.hasSuffix("\n\n") { out.removeLast() }
        return out
    }
}
