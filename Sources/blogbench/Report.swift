import Foundation

/// The numbers of a run and the parameters that produced them, as an
/// aligned table for people or one JSON object for scripts.
struct Report: Encodable {
    let op: String
    let mix: String?
    let host: String
    let port: Int
    let address: String
    let clients: Int
    let keepAlive: Bool
    /// Requested measuring time, when the run was bounded by time.
    let duration: Double?
    /// Requested total, when the run was bounded by a request count.
    let requestsLimit: Int?
    let warmup: Double
    let postSize: Int
    let linkedText: Bool
    let prefillPosts: Int
    let userPrefix: String

    /// Every request attempted while measuring.
    let requests: Int
    let seconds: Double
    /// Requests answered (expected reply or not) per second.
    let throughput: Double
    let p50Ms: Double
    let p90Ms: Double
    let p99Ms: Double
    let p999Ms: Double
    let maxMs: Double
    let meanMs: Double
    let ok: Int
    let unexpected: Int
    let errors: Int
    let unexpectedByReply: [String: Int]
    let errorsByKind: [String: Int]

    enum CodingKeys: String, CodingKey {
        case op, mix, host, port, address, clients
        case keepAlive = "keep_alive", duration, requestsLimit = "requests_limit", warmup
        case postSize = "post_size", linkedText = "linked_text", prefillPosts = "prefill_posts", userPrefix = "user_prefix"
        case requests, seconds, throughput
        case p50Ms = "p50_ms", p90Ms = "p90_ms", p99Ms = "p99_ms", p999Ms = "p999_ms", maxMs = "max_ms", meanMs = "mean_ms"
        case ok, unexpected, errors
        case unexpectedByReply = "unexpected_by_reply", errorsByKind = "errors_by_kind"
    }

    init(options: BenchOptions, prefix: String, result: BenchResult) {
        let stats = result.stats
        let latency = stats.latency
        let answered = latency.totalCount > 0
        // Microseconds in the histogram, milliseconds in the report.
        func ms(_ micros: UInt64) -> Double { TableText.rounded(Double(micros) / 1000) }
        op = options.op.rawValue
        mix = options.op == .mixed ? (try? options.parsedMix().description) : nil
        host = options.host
        port = options.port
        address = result.address
        clients = options.clients
        keepAlive = options.keepAlive
        duration = options.measuredSeconds
        requestsLimit = options.requests
        warmup = options.warmup
        postSize = options.postSize
        linkedText = options.linkedText
        prefillPosts = options.prefillPosts
        userPrefix = prefix
        requests = stats.attempts
        seconds = TableText.rounded(result.seconds)
        throughput = TableText.rounded(result.seconds > 0 ? Double(stats.replies) / result.seconds : 0, places: 1)
        p50Ms = answered ? ms(latency.valueAtPercentile(50)) : 0
        p90Ms = answered ? ms(latency.valueAtPercentile(90)) : 0
        p99Ms = answered ? ms(latency.valueAtPercentile(99)) : 0
        p999Ms = answered ? ms(latency.valueAtPercentile(99.9)) : 0
        maxMs = answered ? ms(latency.maxRecorded) : 0
        meanMs = answered ? TableText.rounded(latency.mean / 1000) : 0
        ok = stats.ok
        unexpected = stats.unexpectedCount
        errors = stats.errorCount
        unexpectedByReply = stats.unexpected
        errorsByKind = stats.errors
    }

    /// One line of JSON, keys sorted so runs diff cleanly.
    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Label/value rows, aligned.
    func table() -> String {
        var rows: [(String, String)] = [
            ("op", op + (mix.map { " (\($0))" } ?? "")),
            ("server", "\(host):\(port) -> \(address)"),
            ("clients", "\(clients)"),
            ("connections", keepAlive ? "keep-alive" : "one per request"),
            ("bound", duration.map { "\(Self.number($0)) s" } ?? "\(requestsLimit ?? 0) requests"),
            ("warmup", "\(Self.number(warmup)) s"),
            ("post size", "\(postSize) B" + (linkedText ? ", two links and three hashtags" : "")),
            ("prefill posts", "\(prefillPosts) per user"),
            ("user prefix", userPrefix),
            ("", ""),
            ("requests", "\(requests)"),
            ("seconds", String(format: "%.3f", seconds)),
            ("throughput", String(format: "%.1f req/s", throughput)),
            ("latency p50", String(format: "%.3f ms", p50Ms)),
            ("latency p90", String(format: "%.3f ms", p90Ms)),
            ("latency p99", String(format: "%.3f ms", p99Ms)),
            ("latency p99.9", String(format: "%.3f ms", p999Ms)),
            ("latency max", String(format: "%.3f ms", maxMs)),
            ("latency mean", String(format: "%.3f ms", meanMs)),
            ("ok", "\(ok)"),
            ("unexpected", "\(unexpected)"),
        ]
        for (reply, count) in unexpectedByReply.sorted(by: { $0.value > $1.value }) {
            rows.append(("  \(reply)", "\(count)"))
        }
        rows.append(("errors", "\(errors)"))
        for (kind, count) in errorsByKind.sorted(by: { $0.value > $1.value }) {
            rows.append(("  \(kind)", "\(count)"))
        }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { label, value in
            label.isEmpty ? "" : label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value
        }.joined(separator: "\n")
    }


    /// 10 rather than 10.0 for whole seconds.
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
