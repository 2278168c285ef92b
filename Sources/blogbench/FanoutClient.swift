import BlogWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `blogbench fanout`'s well-behaved client: one user of the original
/// app posting a 200-byte post at a time, a connection each, as fast as
/// the replies come, from the baseline to the end; each post's latency
/// counted in the phase it began in.
final class FanoutClient: Sendable {
    let client: WellBehavedClient
    private let phase = Atomic<Int>(0)
    private let stats: Mutex<[ProbeStats]>
    private let done = Atomic<Bool>(false)
    private let threads = ThreadGroup()

    init(client: WellBehavedClient, phases: Int) {
        self.client = client
        stats = Mutex(Array(repeating: ProbeStats(), count: phases))
    }

    /// From now on, posts count in `phase`.
    func enter(_ phase: Int) { self.phase.store(phase, ordering: .relaxed) }

    func start() {
        let content = Workload.text(bytes: WellBehavedClient.postBytes)
        threads.start("fanout-client") { [self] in
            var round = 0
            while !done.load(ordering: .relaxed) {
                round += 1
                let now = phase.load(ordering: .relaxed)
                let message = Frame.encode("newpost", [client.user, "Probe \(round)", content])
                let start = monotonicNanoseconds()
                let outcome = OneShot.exchange(message, on: client.route, timeout: client.timeout)
                let nanoseconds = monotonicNanoseconds() - start
                stats.withLock { $0[now].record(outcome, expected: ProbeRequest.newpost.expected, nanoseconds: nanoseconds) }
                if case .failed(.connect) = outcome { usleep(10_000) }
            }
        }
    }

    /// Stops posting; each phase's figures.
    func stop() -> [ProbeStats] {
        done.store(true, ordering: .relaxed)
        threads.join()
        return stats.withLock { $0 }
    }
}

/// The server's resident memory, sampled every 50 ms: the most seen in
/// each phase.
final class FanoutMemory: Sendable {
    let probe: ProcessProbe
    private let phase = Atomic<Int>(0)
    private let peaks: Mutex<[Int]>
    private let done = Atomic<Bool>(false)
    private let threads = ThreadGroup()

    init(probe: ProcessProbe, phases: Int) {
        self.probe = probe
        peaks = Mutex(Array(repeating: 0, count: phases))
    }

    func enter(_ phase: Int) { self.phase.store(phase, ordering: .relaxed) }

    func start() {
        threads.start("fanout-memory") { [self] in
            while !done.load(ordering: .relaxed) {
                if let rss = try? probe.snapshot().rssKB {
                    let now = phase.load(ordering: .relaxed)
                    peaks.withLock { $0[now] = max($0[now], rss) }
                }
                usleep(50_000)
            }
        }
    }

    /// Peak kB by phase.
    func stop() -> [Int] {
        done.store(true, ordering: .relaxed)
        threads.join()
        return peaks.withLock { $0 }
    }
}
