/// The server process before and after a churn run (`--server-pid`).
struct ServerWatch: Sendable {
    let pid: Int32
    let before: ProcessSnapshot
    /// After the run and the wait for sockets; nil if the process was gone.
    let after: ProcessSnapshot?
    /// How long the sockets took to come back (or the whole wait, if they did not).
    let settleSeconds: Double
    let alive: Bool

    /// Seconds to wait after the run for the sockets to come back.
    static let settleLimit = 10.0

    /// Whether the server's sockets are back to their count before the
    /// run: more is a leak, or connections stuck open.
    ///
    /// Sockets, not all descriptors: the server legitimately opens more
    /// files under load (the database pool opens its readers, each with
    /// the database and its WAL, on first demand), and those stay open.
    var socketsRecovered: Bool {
        guard let after else { return false }
        return after.sockets <= before.sockets
    }

    /// Whether the run proves what it is for: the server lived and let go
    /// of every connection.
    var healthy: Bool { alive && socketsRecovered }

    /// Takes the "after" readings: waits for the sockets first, since the
    /// server lingers on closing connections for a few seconds.
    static func finish(_ probe: ProcessProbe, before: ProcessSnapshot) -> ServerWatch {
        let seconds = probe.waitForSockets(atMost: before.sockets, within: settleLimit)
        let after = try? probe.snapshot()
        return ServerWatch(pid: probe.pid, before: before, after: after, settleSeconds: seconds, alive: probe.isAlive)
    }
}
