import Foundation

/// One phase of `blogbench fanout`: the baseline, or one post's fan-out.
struct FanoutPhase: Encodable {
    var name: String
    /// Deliveries the post makes (0 for the baseline).
    var deliveries = 0
    /// Those that arrived (accepted by the farm) within the time allowed.
    var arrived = 0
    /// Seconds from sending the post to the first delivery's arrival, and to the last one's.
    var firstSeconds: Double?
    var allSeconds: Double?
    /// blogd's CPU seconds over the phase.
    var cpuSeconds: Double?
    var seconds: Double = 0
    /// blogd's resident memory at its highest in the phase, MB.
    var peakRSSMB: Double = 0
    var newposts = 0
    var newpostP50Ms: Double?
    var newpostP99Ms: Double?
    var newpostMaxMs: Double?
    var newpostFailures = 0

    var perSecond: Double? { allSeconds.map { $0 > 0 ? Double(arrived) / $0 : 0 } }
    /// blogd's CPU milliseconds per delivery.
    var cpuPerDelivery: Double? {
        guard arrived > 0, let cpuSeconds else { return nil }
        return cpuSeconds * 1000 / Double(arrived)
    }

    mutating func add(_ stats: ProbeStats) {
        newposts = stats.count
        newpostP50Ms = stats.milliseconds(atPercentile: 50)
        newpostP99Ms = stats.milliseconds(atPercentile: 99)
        newpostMaxMs = stats.maxMilliseconds
        newpostFailures = stats.failures
    }
}

/// What `blogbench fanout` prints.
struct FanoutReport: Encodable {
    var hosts: Int
    var followers: Int
    var cores: Int
    var loadAverage: [Double]
    /// Microseconds a signature costs here: with the PEM parsed (as blogd signs) and with a parsed key.
    var signWithParseMicroseconds: Double?
    var signOnlyMicroseconds: Double?
    var phases: [FanoutPhase]
    var signaturesChecked: Int
    var signaturesBad: Int
    var signatureProblems: [String]
    var checkEvery: Int
    var peakPerHost: Int
    var settings: [String]
    var exitStatus: Int32?

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    func table() -> String {
        func number(_ value: Double?, _ places: Int = 2) -> String {
            value.map { String(format: "%.\(places)f", $0) } ?? "-"
        }
        var lines = ["blogbench fanout: \(grouped(followers)) followers of each blog on \(grouped(hosts)) hosts;"
                     + " \(cores) cores, load average \(loadAverage.map { number($0) }.joined(separator: " ")) at the start"]
        if !settings.isEmpty { lines.append("settings: \(settings.joined(separator: " "))") }
        if let signWithParseMicroseconds, let signOnlyMicroseconds {
            lines.append("one signature here: \(Int(signWithParseMicroseconds)) µs as blogd signs (PEM parsed),"
                         + " \(Int(signOnlyMicroseconds)) µs with the key parsed")
        }
        lines.append("")
        var rows = [["phase", "deliveries", "arrived", "first s", "all s", "per s", "blogd CPU s", "CPU ms/delivery",
                     "peak RSS MB", "newposts", "p50 ms", "p99 ms", "max ms", "failed"]]
        for phase in phases {
            rows.append([phase.name, phase.deliveries == 0 ? "-" : grouped(phase.deliveries),
                         phase.deliveries == 0 ? "-" : grouped(phase.arrived),
                         number(phase.firstSeconds), number(phase.allSeconds), number(phase.perSecond, 0),
                         number(phase.cpuSeconds), number(phase.cpuPerDelivery), number(phase.peakRSSMB, 1),
                         grouped(phase.newposts), number(phase.newpostP50Ms), number(phase.newpostP99Ms),
                         number(phase.newpostMaxMs), grouped(phase.newpostFailures)])
        }
        lines += TableText.aligned(rows)
        lines.append("")
        lines.append("signatures checked (every \(checkEvery)th delivery, BlogSignatures' verifier, the key of the blog's actor):"
                     + " \(grouped(signaturesChecked)) good, \(grouped(signaturesBad)) bad")
        lines += signatureProblems.map { "  bad: \($0)" }
        lines.append("most requests under way at once at one host: \(peakPerHost)")
        lines.append("blogd after SIGTERM: \(exitStatus.map { "exit \($0)" } ?? "killed after 30 s")")
        return lines.joined(separator: "\n")
    }
}
