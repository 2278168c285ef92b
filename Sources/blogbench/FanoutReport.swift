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
    /// What blogd's `/metrics` says of the phase.
    var inside: FanoutInside?

    var perSecond: Double? { allSeconds.map { $0 > 0 ? Double(arrived) / $0 : 0 } }
    /// blogd's CPU milliseconds per delivery.
    var cpuPerDelivery: Double? {
        guard arrived > 0, let cpuSeconds else { return nil }
        return cpuSeconds * 1000 / Double(arrived)
    }

    /// The same, less the client's posts in the phase at what a post
    /// cost in the baseline (`perPost`, CPU seconds): the deliveries' own.
    func netCPUPerDelivery(perPost: Double?) -> Double? {
        guard arrived > 0, let cpuSeconds, let perPost else { return nil }
        return max(0, cpuSeconds - perPost * Double(newposts)) * 1000 / Double(arrived)
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
    /// Hosts that never answered (their deliveries not counted in the phases).
    var silentHosts: Int
    var settings: [String]
    var exitStatus: Int32?

    /// blogd's CPU seconds a post in the baseline (the client alone).
    var baselineCPUPerPost: Double? {
        guard let baseline = phases.first, baseline.newposts > 0, let cpu = baseline.cpuSeconds else { return nil }
        return cpu / Double(baseline.newposts)
    }

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
        if silentHosts > 0 { lines.append("\(silentHosts) silent hosts: their deliveries are not counted or waited for") }
        if !settings.isEmpty { lines.append("settings: \(settings.joined(separator: " "))") }
        if let signWithParseMicroseconds, let signOnlyMicroseconds {
            lines.append("one signature here: \(Int(signWithParseMicroseconds)) µs as blogd signs (PEM parsed),"
                         + " \(Int(signOnlyMicroseconds)) µs with the key parsed")
        }
        lines.append("")
        var rows = [["phase", "deliveries", "arrived", "first s", "all s", "per s", "blogd CPU s", "CPU ms/delivery",
                     "net", "peak RSS MB", "newposts", "p50 ms", "p99 ms", "max ms", "failed"]]
        let perPost = baselineCPUPerPost
        for phase in phases {
            rows.append([phase.name, phase.deliveries == 0 ? "-" : grouped(phase.deliveries),
                         phase.deliveries == 0 ? "-" : grouped(phase.arrived),
                         number(phase.firstSeconds), number(phase.allSeconds), number(phase.perSecond, 0),
                         number(phase.cpuSeconds), number(phase.cpuPerDelivery),
                         number(phase.netCPUPerDelivery(perPost: perPost)), number(phase.peakRSSMB, 1),
                         grouped(phase.newposts), number(phase.newpostP50Ms), number(phase.newpostP99Ms),
                         number(phase.newpostMaxMs), grouped(phase.newpostFailures)])
        }
        lines += TableText.aligned(rows)
        lines.append("")
        lines.append("inside blogd (its /metrics over each phase), p99 in ms:")
        var inside = [["phase", "newpost in blogd", "SQLite write", "group commit", "commits"]]
        for phase in phases {
            inside.append([phase.name, number(phase.inside?.serverNewpostP99Ms), number(phase.inside?.writeP99Ms),
                           number(phase.inside?.commitP99Ms), phase.inside.map { grouped($0.commits) } ?? "-"])
        }
        lines += TableText.aligned(inside)
        lines.append("newpost in blogd: a complete message to its reply; SQLite write: handed in to on disk"
                     + " (the wait for the writer, then its batch); group commit: the writer held, fsync included")
        lines.append("net: CPU a delivery less the client's posts in the phase, at the baseline's"
                     + " \(number(perPost.map { $0 * 1000 }, 3)) ms of CPU a post")
        lines.append("")
        lines.append("signatures checked (every \(checkEvery)th delivery, BlogSignatures' verifier, the key of the blog's actor):"
                     + " \(grouped(signaturesChecked)) good, \(grouped(signaturesBad)) bad")
        lines += signatureProblems.map { "  bad: \($0)" }
        lines.append("most requests under way at once at one host: \(peakPerHost)")
        lines.append("blogd after SIGTERM: \(exitStatus.map { "exit \($0)" } ?? "killed after 30 s")")
        return lines.joined(separator: "\n")
    }
}
