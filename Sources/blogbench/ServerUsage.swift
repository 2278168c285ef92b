/// The server process during and after an attack (`--server-pid`): its CPU
/// time, and its sockets and memory near the end, all from /proc.
struct ServerUsage: Sendable {
    let pid: Int32
    let before: ProcessSnapshot?
    /// Shortly before the attack stopped: what it was holding then.
    let nearEnd: ProcessSnapshot?
    /// CPU seconds over the attack; nil if /proc could not tell.
    let cpuDuring: Double?
    let secondsDuring: Double
    /// CPU seconds over the `secondsAfter` after everything was closed: a
    /// server still busy then is working for clients that have left.
    let cpuAfter: Double?
    let secondsAfter: Double
    let alive: Bool

    /// Average cores busy: CPU seconds over wall seconds.
    static func cores(_ cpu: Double?, over seconds: Double) -> Double? {
        guard let cpu, seconds > 0 else { return nil }
        return cpu / seconds
    }

    var coresDuring: Double? { Self.cores(cpuDuring, over: secondsDuring) }
    var coresAfter: Double? { Self.cores(cpuAfter, over: secondsAfter) }
}

/// CPU readings of one process at the points the run needs them.
struct CPUMark {
    let probe: ProcessProbe
    let seconds: Double?

    init(_ probe: ProcessProbe) {
        self.probe = probe
        seconds = try? probe.cpuSeconds()
    }

    /// CPU seconds from this mark to `later`.
    func until(_ later: CPUMark) -> Double? {
        guard let start = seconds, let end = later.seconds else { return nil }
        return end - start
    }
}
