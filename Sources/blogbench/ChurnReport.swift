import Foundation

/// The numbers of a churn run and what produced them, as an aligned table
/// for people or one JSON object (keys sorted) for scripts.
struct ChurnReport: Encodable {
    let host: String
    let port: Int
    let address: String
    let threads: Int
    let keepAlive: Bool
    let timeout: Double
    /// Requested seconds.
    let duration: Double
    /// Seconds the run took, until the last thread finished.
    let seconds: Double
    let stats: ChurnStats
    let server: ServerWatch?

    var total: KindCounts { stats.total }
    /// Connections attempted per second.
    var rate: Double { seconds > 0 ? Double(total.connections) / seconds : 0 }

    enum CodingKeys: String, CodingKey {
        case host, port, address, threads, timeout, duration, seconds, rate
        case keepAlive = "keep_alive"
        case connections, ok, busy, failures
        case failuresByReason = "failures_by_reason"
        case slowestMs = "slowest_ms"
        case unexpectedReplies = "unexpected_replies"
        case kinds
        case serverPid = "server_pid", serverAlive = "server_alive"
        case fdBefore = "fd_before", fdAfter = "fd_after"
        case socketsBefore = "sockets_before", socketsAfter = "sockets_after"
        case socketsRecovered = "sockets_recovered", settleSeconds = "settle_seconds"
        case rssKBBefore = "rss_kb_before", rssKBAfter = "rss_kb_after", rssKBDelta = "rss_kb_delta", hwmKB = "hwm_kb"
    }

    /// Server keys are null without `--server-pid`, so every report has the same keys.
    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(host, forKey: .host)
        try c.encode(port, forKey: .port)
        try c.encode(address, forKey: .address)
        try c.encode(threads, forKey: .threads)
        try c.encode(keepAlive, forKey: .keepAlive)
        try c.encode(timeout, forKey: .timeout)
        try c.encode(duration, forKey: .duration)
        try c.encode(TableText.rounded(seconds), forKey: .seconds)
        try c.encode(TableText.rounded(rate, places: 1), forKey: .rate)
        let total = total
        try c.encode(total.connections, forKey: .connections)
        try c.encode(total.ok, forKey: .ok)
        try c.encode(total.busy, forKey: .busy)
        try c.encode(total.failures, forKey: .failures)
        try c.encode(total.failuresByReason, forKey: .failuresByReason)
        try c.encode(total.slowestMilliseconds, forKey: .slowestMs)
        try c.encode(stats.unexpectedReplies, forKey: .unexpectedReplies)
        let kinds = Dictionary(uniqueKeysWithValues: ChurnKind.allCases.map { ($0.rawValue, stats.byKind[$0] ?? KindCounts()) })
        try c.encode(kinds, forKey: .kinds)
        try c.encode(server?.pid, forKey: .serverPid)
        try c.encode(server?.alive, forKey: .serverAlive)
        try c.encode(server?.before.openFiles, forKey: .fdBefore)
        try c.encode(server?.after?.openFiles, forKey: .fdAfter)
        try c.encode(server?.before.sockets, forKey: .socketsBefore)
        try c.encode(server?.after?.sockets, forKey: .socketsAfter)
        try c.encode(server?.socketsRecovered, forKey: .socketsRecovered)
        try c.encode(server.map { TableText.rounded($0.settleSeconds) }, forKey: .settleSeconds)
        try c.encode(server?.before.rssKB, forKey: .rssKBBefore)
        try c.encode(server?.after?.rssKB, forKey: .rssKBAfter)
        try c.encode(server.flatMap { s in s.after.map { $0.rssKB - s.before.rssKB } }, forKey: .rssKBDelta)
        try c.encode(server.map { $0.after?.hwmKB ?? $0.before.hwmKB }, forKey: .hwmKB)
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    func table() -> String {
        var lines = [
            "server       \(host):\(port) -> \(address)" + (keepAlive ? " (keep-alive)" : ""),
            "threads      \(threads)",
            "duration     \(Report.number(duration)) s (ran \(String(format: "%.3f", seconds)) s)",
            "connections  \(total.connections) (\(String(format: "%.1f", rate))/s)",
            "ok           \(total.ok)",
            "busy         \(total.busy)",
            "failures     \(total.failures)",
            "",
        ]
        let header = ["kind", "connections", "ok", "busy", "failures", "slowest ms"]
        func row(_ name: String, _ counts: KindCounts) -> [String] {
            [name, "\(counts.connections)", "\(counts.ok)", "\(counts.busy)", "\(counts.failures)",
             String(format: "%.1f", counts.slowestMilliseconds)]
        }
        var rows = ChurnKind.allCases.map { row($0.rawValue, stats.byKind[$0] ?? KindCounts()) }
        rows.append(row("total", total))
        lines += TableText.aligned([header] + rows)
        let failing = ChurnKind.allCases.filter { !(stats.byKind[$0]?.failuresByReason.isEmpty ?? true) }
        if !failing.isEmpty {
            lines += ["", "failures by reason"]
            for kind in failing {
                for (reason, count) in stats.byKind[kind]!.failuresByReason.sorted(by: { $0.value > $1.value }) {
                    lines.append("  \(kind.rawValue): \(reason)  \(count)")
                }
            }
        }
        if !stats.unexpectedReplies.isEmpty {
            lines += ["", "unexpected replies"]
            for (text, count) in stats.unexpectedReplies.sorted(by: { $0.value > $1.value }).prefix(10) {
                lines.append("  \(text)  \(count)")
            }
        }
        if let server { lines += [""] + Self.serverLines(server) }
        return lines.joined(separator: "\n")
    }

    private static func serverLines(_ server: ServerWatch) -> [String] {
        let before = server.before
        var lines = ["server process \(server.pid)"]
        if let after = server.after {
            let settle = String(format: "%.1f", server.settleSeconds)
            let back = server.socketsRecovered ? "back in \(settle) s" : "NOT back after \(settle) s"
            lines.append("  sockets   \(before.sockets) before, \(after.sockets) after (\(back))")
            lines.append("  fds       \(before.openFiles) before, \(after.openFiles) after")
            let delta = after.rssKB - before.rssKB
            lines.append("  rss       \(before.rssKB) kB before, \(after.rssKB) kB after (\(delta >= 0 ? "+" : "")\(delta) kB)")
            lines.append("  peak rss  \(after.hwmKB) kB")
        } else {
            lines.append("  sockets   \(before.sockets) before, none after (process gone)")
            lines.append("  fds       \(before.openFiles) before")
            lines.append("  rss       \(before.rssKB) kB before")
        }
        lines.append("  alive     \(server.alive ? "yes" : "NO")")
        return lines
    }
}
