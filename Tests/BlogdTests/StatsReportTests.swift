import BlogCore
import BlogModel
import Testing
@testable import blogd

/// The pure parts of `blogd stats`: reading Prometheus text, quantiles
/// from buckets, the reply it accepts, and the table.
@Suite
struct StatsReportTests {
    @Test func readsSampleLines() {
        let text = """
            # HELP x y
            # TYPE blogd_requests_total counter
            blogd_requests_total{command="login",reply="log:OK"} 3
            blogd_connections_open 2.0
            blogd_lane_wait_seconds_bucket{lane="hash",le="+Inf"} 7 1700000000000
            odd{label="a \\"quoted\\" \\\\ value\\n"} 1
            this line is not a sample
            """
        let samples = PrometheusText.samples(in: text)
        #expect(samples == [
            Sample(name: "blogd_requests_total", labels: ["command": "login", "reply": "log:OK"], value: 3),
            Sample(name: "blogd_connections_open", labels: [:], value: 2),
            Sample(name: "blogd_lane_wait_seconds_bucket", labels: ["lane": "hash", "le": "+Inf"], value: 7),
            Sample(name: "odd", labels: ["label": "a \"quoted\" \\ value\n"], value: 1),
        ])
    }

    @Test func quantilesInterpolateWithinTheirBucket() {
        let buckets: [(bound: Double, count: Double)] = [(0.1, 8), (0.2, 10), (.infinity, 10)]
        #expect(near(HistogramQuantile.estimate(0.5, buckets: buckets), 0.0625))
        #expect(near(HistogramQuantile.estimate(0.9, buckets: buckets), 0.15))
        #expect(near(HistogramQuantile.estimate(1, buckets: buckets), 0.2))
        // Past the last finite bound: only "more than".
        #expect(HistogramQuantile.estimate(0.99, buckets: [(0.1, 1), (.infinity, 2)]) == .above(0.1))
        // Empty buckets before the one that holds it are skipped.
        #expect(near(HistogramQuantile.estimate(0.5, buckets: [(0.001, 0), (0.002, 0), (0.005, 4), (.infinity, 4)]), 0.0035))
        #expect(HistogramQuantile.estimate(0.5, buckets: [(0.1, 0), (.infinity, 0)]) == nil)
        #expect(HistogramQuantile.estimate(0.5, buckets: []) == nil)
        // For counts, the bucket's bound.
        let batches: [(bound: Double, count: Double)] = [(1, 6), (2, 6), (4, 9), (8, 10), (.infinity, 10)]
        #expect(HistogramQuantile.bound(0.5, buckets: batches) == .value(1))
        #expect(HistogramQuantile.bound(0.9, buckets: batches) == .value(4))
        #expect(HistogramQuantile.bound(0.99, buckets: batches) == .value(8))
        #expect(HistogramQuantile.bound(0.99, buckets: [(1, 1), (.infinity, 3)]) == .above(1))
    }

    private func near(_ estimate: HistogramQuantile?, _ expected: Double) -> Bool {
        guard case .value(let value) = estimate else { return false }
        return abs(value - expected) < 1e-12
    }

    @Test func takesOnlyAnOKReplysBody() throws {
        #expect(try MetricsAddress.body(of: "HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nx 1\n", from: "a") == "x 1\n")
        #expect(throws: StatsError.badReply(address: "a", status: 404)) {
            try MetricsAddress.body(of: "HTTP/1.1 404 Not Found\r\n\r\nnot found\n", from: "a")
        }
        #expect(throws: StatsError.badReply(address: "a", status: nil)) {
            try MetricsAddress.body(of: "err:CMD[E];", from: "a")
        }
    }

    @Test func wildcardHostsAreReadAsLoopback() throws {
        var settings = BlogConfig()
        #expect(throws: StatsError.metricsOff) { try MetricsAddress(settings) }
        settings.metricsPort = 0
        #expect(throws: StatsError.anyPort) { try MetricsAddress(settings) }
        settings.metricsPort = 9151
        #expect(try MetricsAddress(settings).shown == "127.0.0.1:9151")
        settings.metricsHost = "*"
        #expect(try MetricsAddress(settings).shown == "127.0.0.1:9151")
        settings.metricsHost = "::"
        #expect(try MetricsAddress(settings).shown == "[::1]:9151")
    }

    @Test func theTableShowsWhatHappened() {
        let text = """
            blogd_requests_total{command="register",reply="reg:OK"} 2
            blogd_requests_total{command="login",reply="log:NA"} 1
            blogd_requests_total{command="newpost",reply="post:OK"} 0
            blogd_request_duration_seconds_bucket{command="register",le="0.001"} 0
            blogd_request_duration_seconds_bucket{command="register",le="0.01"} 2
            blogd_request_duration_seconds_bucket{command="register",le="+Inf"} 2
            blogd_request_duration_seconds_count{command="register"} 2
            blogd_connections_open 1
            blogd_connections_accepted_total 5
            blogd_connections_refused_total{reason="per_address"} 3
            blogd_group_commits_total 4
            blogd_storage_errors_total{kind="sqlite"} 1
            """
        let report = StatsReport(samples: PrometheusText.samples(in: text)).text
        let lines = report.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("register reg:OK 2"), "\(report)")
        #expect(lines.contains("login log:NA 1"), "\(report)")
        #expect(!report.contains("post:OK"), "pairs that did not happen are left out")
        #expect(lines.contains("register 2 5.5 9.91"), "\(report)")
        #expect(report.contains("connections: 1 open, 5 accepted, 0 refused over the limit, 3 per address, 0 evicted"),
                "\(report)")
        #expect(report.contains("commits: 4 "), "\(report)")
        #expect(report.contains("storage: errors sqlite 1, 0 deadlines hit"), "\(report)")
    }
}
