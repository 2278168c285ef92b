import BlogModel
import BlogSockets

/// blogd's own view of one phase of `blogbench fanout`, from its
/// `/metrics` read at the phase's start and end: where a newpost's time
/// went. The server's newpost time (a complete message to its reply),
/// a SQLite write's (handed in to on disk: the wait for the writer and
/// its own batch) and a group commit's hold on the writer: what the
/// fan-out's chunks, claims and settles cost the posts.
struct FanoutInside: Encodable {
    var serverNewpostP99Ms: Double?
    var writeP99Ms: Double?
    var commitP99Ms: Double?
    var commits = 0

    /// From the samples at the start (`before`) to those at the end.
    init(from before: [Sample], to after: [Sample]) {
        func p99(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            let start = Dictionary(HistogramQuantile.buckets(of: name, labels: labels, in: before),
                                   uniquingKeysWith: { $1 })
            let phase = HistogramQuantile.buckets(of: name, labels: labels, in: after).map { bucket in
                (bound: bucket.bound, count: bucket.count - start[bucket.bound, default: 0])
            }
            return HistogramQuantile.estimate(0.99, buckets: phase).map { estimate in
                switch estimate {
                case .value(let seconds), .above(let seconds): seconds * 1000
                }
            }
        }
        serverNewpostP99Ms = p99(MetricName.requestDuration, ["command": "newpost"])
        writeP99Ms = p99(MetricName.storageWriteDuration)
        commitP99Ms = p99(MetricName.groupCommitDuration)
        let count = { (samples: [Sample]) in
            samples.first { $0.name == MetricName.groupCommits && $0.labels.isEmpty }?.value ?? 0
        }
        commits = Int(count(after) - count(before))
    }

    /// blogd's `/metrics` now; nil when it cannot be read (the phase then
    /// shows none of these figures).
    static func samples(metrics: Route) -> [Sample]? {
        guard let (head, body) = try? FanoutHTTP.get("/metrics", accept: "text/plain", on: metrics, timeout: 30),
              head.hasPrefix("HTTP/1.1 200") else { return nil }
        return PrometheusText.samples(in: String(decoding: body, as: UTF8.self))
    }
}
