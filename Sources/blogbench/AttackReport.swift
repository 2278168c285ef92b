import Foundation

/// How the well-behaved client fared and what the attacker did, as a table
/// for people or one JSON object (keys sorted) for scripts. Every key is
/// always there, null when it does not apply, so runs compare key by key.
struct AttackReport: Encodable {
    let kind: AttackKind
    let host: String
    let port: Int
    let httpPort: Int?
    let server: String
    let clientAddress: String
    let attackerAddress: String
    let clientUser: String
    let duration: Double
    let timeout: Double
    let connections: Int
    /// Seconds the window lasted, until every thread had stopped.
    let seconds: Double
    let probe: ProbeResult
    let attacker: any Attacker
    let tally: AttackTally
    let usage: ServerUsage?
    /// This process's own CPU seconds over the run: near the machine's
    /// cores, the client side is the bottleneck, not the server.
    let benchCPU: Double?

    enum CodingKeys: String, CodingKey {
        case kind, summary, host, port, duration, timeout, connections, seconds, rounds, requests, attacker, server
        case httpPort = "http_port", address = "address", clientAddress = "client_address"
        case attackerAddress = "attacker_address", clientUser = "client_user", benchCPU = "bench_cpu_seconds"
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind.rawValue, forKey: .kind)
        try c.encode(kind.summary, forKey: .summary)
        try c.encode(host, forKey: .host)
        try c.encode(port, forKey: .port)
        try c.encode(httpPort, forKey: .httpPort)
        try c.encode(server, forKey: .address)
        try c.encode(clientAddress, forKey: .clientAddress)
        try c.encode(attackerAddress, forKey: .attackerAddress)
        try c.encode(clientUser, forKey: .clientUser)
        try c.encode(duration, forKey: .duration)
        try c.encode(timeout, forKey: .timeout)
        try c.encode(connections, forKey: .connections)
        try c.encode(TableText.rounded(seconds), forKey: .seconds)
        try c.encode(probe.rounds, forKey: .rounds)
        let requests = Dictionary(uniqueKeysWithValues: ProbeRequest.allCases.map {
            ($0.rawValue, RequestJSON(stats: probe.byRequest[$0] ?? ProbeStats(), seconds: seconds))
        })
        try c.encode(requests, forKey: .requests)
        try c.encode(AttackerJSON(threads: attacker.threads, summary: attacker.summary(of: tally), counts: tally.all),
                     forKey: .attacker)
        try c.encode(usage.map(ServerJSON.init), forKey: .server)
        try c.encode(benchCPU.map { TableText.rounded($0) }, forKey: .benchCPU)
    }

    private struct RequestJSON: Encodable {
        let count, ok, failures, unfinished: Int
        let rate: Double
        let p50Ms, p99Ms, maxMs: Double?
        let unfinishedWaitMs: Double?
        let failuresByReason: [String: Int]

        init(stats: ProbeStats, seconds: Double) {
            count = stats.count
            ok = stats.ok
            failures = stats.failures
            unfinished = stats.unfinished
            rate = TableText.rounded(seconds > 0 ? Double(stats.count) / seconds : 0, places: 1)
            p50Ms = stats.milliseconds(atPercentile: 50).map { TableText.rounded($0) }
            p99Ms = stats.milliseconds(atPercentile: 99).map { TableText.rounded($0) }
            maxMs = stats.maxMilliseconds.map { TableText.rounded($0) }
            unfinishedWaitMs = stats.unfinished > 0 ? TableText.rounded(Double(stats.unfinishedWaitNanoseconds) / 1e6) : nil
            failuresByReason = stats.failuresByReason
        }

        enum CodingKeys: String, CodingKey {
            case count, ok, failures, unfinished, rate
            case p50Ms = "p50_ms", p99Ms = "p99_ms", maxMs = "max_ms"
            case unfinishedWaitMs = "unfinished_wait_ms", failuresByReason = "failures_by_reason"
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(count, forKey: .count)
            try c.encode(ok, forKey: .ok)
            try c.encode(failures, forKey: .failures)
            try c.encode(unfinished, forKey: .unfinished)
            try c.encode(rate, forKey: .rate)
            try c.encode(p50Ms, forKey: .p50Ms)
            try c.encode(p99Ms, forKey: .p99Ms)
            try c.encode(maxMs, forKey: .maxMs)
            try c.encode(unfinishedWaitMs, forKey: .unfinishedWaitMs)
            try c.encode(failuresByReason, forKey: .failuresByReason)
        }
    }

    private struct AttackerJSON: Encodable {
        let threads: Int
        let summary: String
        let counts: [String: Int]
    }

    private struct ServerJSON: Encodable {
        let usage: ServerUsage

        enum CodingKeys: String, CodingKey {
            case pid, alive
            case cpuSeconds = "cpu_seconds", cpuCores = "cpu_cores"
            case afterSeconds = "after_seconds", cpuAfterSeconds = "cpu_after_seconds", cpuAfterCores = "cpu_after_cores"
            case socketsBefore = "sockets_before", socketsNearEnd = "sockets_near_end"
            case rssKBBefore = "rss_kb_before", rssKBNearEnd = "rss_kb_near_end"
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(usage.pid, forKey: .pid)
            try c.encode(usage.alive, forKey: .alive)
            try c.encode(usage.cpuDuring.map { TableText.rounded($0) }, forKey: .cpuSeconds)
            try c.encode(usage.coresDuring.map { TableText.rounded($0, places: 2) }, forKey: .cpuCores)
            try c.encode(usage.secondsAfter, forKey: .afterSeconds)
            try c.encode(usage.cpuAfter.map { TableText.rounded($0) }, forKey: .cpuAfterSeconds)
            try c.encode(usage.coresAfter.map { TableText.rounded($0, places: 2) }, forKey: .cpuAfterCores)
            try c.encode(usage.before?.sockets, forKey: .socketsBefore)
            try c.encode(usage.nearEnd?.sockets, forKey: .socketsNearEnd)
            try c.encode(usage.before?.rssKB, forKey: .rssKBBefore)
            try c.encode(usage.nearEnd?.rssKB, forKey: .rssKBNearEnd)
        }
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    func table() -> String {
        var lines = [
            "attack     \(kind.rawValue): \(kind.summary)",
            "server     \(host):\(port) -> \(server)" + (httpPort.map { ", http port \($0)" } ?? ""),
            "client     from \(clientAddress), user \(clientUser), one connection per request, timeout \(Report.number(timeout)) s",
            "attacker   from \(attackerAddress)",
            "ran        \(String(format: "%.3f", seconds)) s (duration \(Report.number(duration)) s), \(grouped(probe.rounds)) client rounds",
            "",
        ]
        let header = ["request", "count", "ok", "failures", "unfinished", "req/s", "p50 ms", "p99 ms", "max ms"]
        func ms(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "-" }
        let rows = ProbeRequest.allCases.map { request -> [String] in
            let stats = probe.byRequest[request] ?? ProbeStats()
            return [request.rawValue, "\(stats.count)", "\(stats.ok)", "\(stats.failures)", "\(stats.unfinished)",
                    String(format: "%.1f", seconds > 0 ? Double(stats.count) / seconds : 0),
                    ms(stats.milliseconds(atPercentile: 50)), ms(stats.milliseconds(atPercentile: 99)), ms(stats.maxMilliseconds)]
        }
        lines += TableText.aligned([header] + rows)
        let notes = ProbeRequest.allCases.flatMap { request -> [String] in
            guard let stats = probe.byRequest[request] else { return [] }
            var notes = stats.failuresByReason.sorted { $0.value > $1.value }.map { "  \(request.rawValue): \($0.key)  \($0.value)" }
            if stats.unfinished > 0 {
                let waited = String(format: "%.1f", Double(stats.unfinishedWaitNanoseconds) / 1e6)
                notes.append("  \(request.rawValue): unfinished at the end, after waiting up to \(waited) ms  \(stats.unfinished)")
            }
            return notes
        }
        if !notes.isEmpty { lines += ["", "failed and unfinished requests (not in the latency columns)"] + notes }
        lines += ["", "attacker   \(attacker.summary(of: tally))"]
        let counts = tally.all.sorted { $0.key < $1.key }
        let width = counts.map(\.key.count).max() ?? 0
        lines += counts.map { "  " + $0.key.padding(toLength: width, withPad: " ", startingAt: 0) + "  \($0.value)" }
        if let usage { lines += [""] + Self.serverLines(usage) }
        if let benchCPU {
            lines.append("blogbench  \(String(format: "%.2f", benchCPU)) s CPU in \(String(format: "%.1f", seconds)) s"
                         + " (\(String(format: "%.2f", benchCPU / max(seconds, 0.001))) cores; client, attacker and server share this machine)")
        }
        return lines.joined(separator: "\n")
    }

    private static func serverLines(_ usage: ServerUsage) -> [String] {
        func cpu(_ seconds: Double?, _ over: Double, _ cores: Double?) -> String {
            guard let seconds, let cores else { return "unknown" }
            return String(format: "%.2f s CPU in %.1f s (%.2f cores)", seconds, over, cores)
        }
        var lines = [
            "server     process \(usage.pid), \(usage.alive ? "alive" : "DEAD") after the run",
            "  during the attack      " + cpu(usage.cpuDuring, usage.secondsDuring, usage.coresDuring),
            "  after it stopped       " + cpu(usage.cpuAfter, usage.secondsAfter, usage.coresAfter),
        ]
        if let before = usage.before, let end = usage.nearEnd {
            lines.append("  sockets                \(before.sockets) before, \(end.sockets) near the end")
            lines.append("  rss                    \(before.rssKB) kB before, \(end.rssKB) kB near the end")
        }
        return lines
    }
}
