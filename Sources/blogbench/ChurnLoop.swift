import BlogSockets
#if canImport(Glibc)
import Glibc
#endif

/// One churn thread's work: connection after connection, each of the next
/// kind in turn, until the end time.
struct ChurnLoop: Sendable {
    let address: SocketAddress
    let timeout: Double
    let keepAlive: Bool
    /// Threads start at different kinds, so every kind runs at every moment.
    let firstKind: Int

    /// Runs until `end` (monotonic ns); a connection under way then is
    /// finished, so the loop may overrun by up to `timeout`.
    func run(until end: UInt64) -> ChurnStats {
        let kinds = ChurnKind.allCases
        var stats = ChurnStats()
        var next = firstKind % kinds.count
        while monotonicNanoseconds() < end {
            let kind = kinds[next]
            next = (next + 1) % kinds.count
            let start = monotonicNanoseconds()
            let outcome = kind.exercise(address, timeout: timeout, keepAlive: keepAlive)
            stats.record(kind, outcome, nanoseconds: monotonicNanoseconds() - start)
            // A dead or refusing server fails every connect at once: pause so
            // the loop counts failures instead of spinning a core on them.
            if case .failed(.connect) = outcome { usleep(10_000) }
        }
        return stats
    }
}
