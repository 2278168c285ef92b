import Foundation
import Synchronization

/// The claims a `BackgroundSender` holds, across every batch it claimed:
/// each is sent, as a task on `OutgoingExecutor`, once its host has a free
/// slot (`perHost`) and the window one in all (`concurrency`), in the
/// order they were claimed. A host at its limit keeps only its own claims
/// waiting: one that never answers holds its slots, not the others'.
/// What finished waits here until the sender takes it to settle.
final class SendWindow<Job: BackgroundJob>: Sendable {
    private struct Entry: Sendable {
        /// The claim's place in claim order: settles keep it.
        var order: Int
        var claim: Job.Claim
        var host: String
    }

    private struct State {
        var waiting: [Entry] = []
        var perHost: [String: Int] = [:]
        var sending = 0
        var tasks: [Int: Task<Void, Never>] = [:]
        var finished: [(order: Int, claim: Job.Claim, outcome: Job.Outcome)] = []
        var next = 0
        var cancelled = false
    }

    private let job: Job
    private let perHost: Int
    private let concurrency: Int
    private let settleEvery: Int
    private let finishing: @Sendable () -> Void
    private let state = Mutex(State())
    private let idle = NSCondition()

    /// - Parameters:
    ///   - settleEvery: `finishing` is called when this many (and every
    ///     multiple) have finished, when the first one has, and when
    ///     nothing is left under way, so that settles come in groups.
    ///   - finishing: tells the sender there is something to settle.
    init(job: Job, perHost: Int, concurrency: Int, settleEvery: Int, finishing: @escaping @Sendable () -> Void) {
        self.job = job
        self.perHost = max(1, perHost)
        self.concurrency = max(1, concurrency)
        self.settleEvery = max(1, settleEvery)
        self.finishing = finishing
    }

    /// Claims held: waiting, being sent, or finished and not yet taken.
    var held: Int { state.withLock { $0.waiting.count + $0.sending + $0.finished.count } }

    /// The claims waiting or being sent, by host: what a claim for the
    /// window reads once, to pass the crowded hosts by and to tell which
    /// hosts its claims fill.
    func heldByHost() -> [String: Int] {
        state.withLock { state in
            var held = state.perHost
            for entry in state.waiting { held[entry.host, default: 0] += 1 }
            return held
        }
    }

    /// Claims waiting for a slot or being sent.
    var underWay: Int { state.withLock { $0.waiting.count + $0.sending } }

    /// Takes `claims` in: those whose host (and the window) has room are
    /// sent at once, the others wait their turn.
    func add(_ claims: [Job.Claim]) {
        state.withLock { state in
            for claim in claims {
                state.waiting.append(Entry(order: state.next, claim: claim, host: job.host(of: claim)))
                state.next += 1
            }
            startWhatFits(&state)
        }
    }

    /// What finished since the last take, in claim order.
    func takeFinished() -> (claims: [Job.Claim], outcomes: [Job.Outcome]) {
        let finished = state.withLock { state in
            defer { state.finished = [] }
            return state.finished
        }.sorted { $0.order < $1.order }
        return (finished.map(\.claim), finished.map(\.outcome))
    }

    /// Cancels the sends under way, and every one started from now on:
    /// a job's send, cancelled, ends at once with what it says then.
    func cancel() {
        let tasks = state.withLock { state in
            state.cancelled = true
            return Array(state.tasks.values)
        }
        tasks.forEach { $0.cancel() }
    }

    /// Blocks until no claim is waiting or being sent.
    func waitUntilIdle() {
        idle.lock()
        defer { idle.unlock() }
        while !isIdle { idle.wait() }
    }

    private var isIdle: Bool { state.withLock { $0.waiting.isEmpty && $0.sending == 0 } }

    /// Starts, in claim order, every waiting claim whose host has a free
    /// slot while the window has one.
    private func startWhatFits(_ state: inout State) {
        guard state.sending < concurrency, !state.waiting.isEmpty else { return }
        var kept: [Entry] = []
        for entry in state.waiting {
            if state.sending < concurrency, state.perHost[entry.host, default: 0] < perHost {
                start(entry, &state)
            } else {
                kept.append(entry)
            }
        }
        state.waiting = kept
    }

    private func start(_ entry: Entry, _ state: inout State) {
        state.perHost[entry.host, default: 0] += 1
        state.sending += 1
        // Made under the lock: its `finish` takes the lock, so the task is
        // in `tasks` before it can leave them.
        let task = Task(executorPreference: OutgoingExecutor.shared) { [self] in
            let outcome = await job.send(entry.claim)
            finish(entry, outcome)
        }
        if state.cancelled { task.cancel() }
        state.tasks[entry.order] = task
    }

    private func finish(_ entry: Entry, _ outcome: Job.Outcome) {
        let (worthSettling, nowIdle) = state.withLock { state in
            state.tasks[entry.order] = nil
            state.perHost[entry.host]! -= 1
            if state.perHost[entry.host] == 0 { state.perHost[entry.host] = nil }
            state.sending -= 1
            state.finished.append((entry.order, entry.claim, outcome))
            startWhatFits(&state)
            let finished = state.finished.count
            let nowIdle = state.waiting.isEmpty && state.sending == 0
            return (finished == 1 || finished % settleEvery == 0 || nowIdle, nowIdle)
        }
        if nowIdle {
            idle.lock()
            idle.broadcast()
            idle.unlock()
        }
        if worthSettling { finishing() }
    }
}
