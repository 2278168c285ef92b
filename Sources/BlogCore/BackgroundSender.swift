import Dispatch
import Foundation
import Logging
import Synchronization
import BlogModel

/// The loop of the background senders (Webmentions, ActivityPub
/// deliveries): a thread of its own that looks at the job's queue at the
/// start, on a wake-up (after a short gathering wait, so that a burst of
/// posts is claimed and settled in a few writes) and every
/// `pollInterval`; each look claims one batch of due rows under a lease,
/// sends them as tasks on `OutgoingExecutor` (see `sendBatch`), settles
/// them in one write and counts their outcomes, and looks again at once
/// when the batch was full.
///
/// The sender does not keep its job: `start` hands it to the thread,
/// `sendDue` takes it for one look, so a job may own its sender.
///
///     let loop = BackgroundSender<Job>(thread: "blogd-x", queue: "x queue", settings: pace, now: Date.init, logger: logger)
///     loop.start(job)
///     loop.wake()
///     loop.stop()
final class BackgroundSender<Job: BackgroundJob>: Sendable {
    struct Settings: Sendable {
        /// Rows claimed at once (settled in one write).
        var batch: Int
        /// How long a claim hides a row from other claims.
        var lease: Double
        /// Sends at once to one host.
        var perHost: Int = 1
        /// Sends at once in all.
        var concurrency: Int = .max
        /// Seconds between looks when nothing woke the sender; nil: only
        /// `wake()` (tests, which move the clock themselves).
        var pollInterval: Double?
        /// Seconds a wake-up waits before the look.
        var gather: Double
    }

    private struct State {
        var running = false
        var stopping = false
        var woken = false
        /// The sends under way, cancelled by `stop`.
        var batch: Task<Void, Never>?
    }

    let settings: Settings
    private let thread: String
    private let queue: String
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let counts = Mutex<[Job.Outcome: Int]>([:])

    /// - Parameters:
    ///   - thread: the loop thread's name.
    ///   - queue: what the log calls the job's queue when it cannot be read.
    ///   - now: the clock of due times and leases (tests move it by hand).
    init(thread: String, queue: String, settings: Settings, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.thread = thread
        self.queue = queue
        self.settings = settings
        self.now = now
        self.logger = logger
    }

    /// Starts the thread, which looks at once; a second start does nothing.
    func start(_ job: Job) {
        let thread: Thread? = state.withLock { state in
            guard !state.running else { return nil }
            state.running = true
            return Thread { [self] in self.loop(job) }
        }
        thread?.name = self.thread
        thread?.start()
    }

    /// Something was queued, or the clock moved: look now. Wake-ups that
    /// come while the thread is busy are one more look after it.
    func wake() {
        let signalled = state.withLock { state in
            guard !state.woken else { return false }
            state.woken = true
            return true
        }
        if signalled { signal.signal() }
    }

    /// Stops the thread: the sends under way are cancelled and settled as
    /// the job says (due again after their backoff); what is not claimed
    /// waits in the store for the next start.
    func stop() {
        let (wasRunning, batch) = state.withLock { state in
            defer { state.stopping = true }
            return (state.running && !state.stopping, state.batch)
        }
        batch?.cancel()
        guard wasRunning else { return }
        signal.signal()
        stopped.wait()
    }

    /// How many claims came to `outcome` since the start.
    func count(_ outcome: Job.Outcome) -> Int { counts.withLock { $0[outcome, default: 0] } }

    private func loop(_ job: Job) {
        defer { stopped.signal() }
        while !state.withLock({ $0.stopping }) {
            state.withLock { $0.woken = false }
            var busy = false
            do {
                busy = try job.prepare()
                busy = try sendDue(job) >= settings.batch || busy
            } catch {
                logger.warning("\(queue) unreadable", metadata: ["error": "\(error)"])
            }
            // A full batch: there may be more due at once.
            if busy { continue }
            if let interval = settings.pollInterval {
                _ = signal.wait(timeout: .now() + interval)
            } else {
                signal.wait()
            }
            if settings.gather > 0, !state.withLock({ $0.stopping }) {
                Thread.sleep(forTimeInterval: settings.gather)
            }
        }
    }

    /// Claims one batch of due rows, sends them and settles them (on the
    /// caller's thread, which it blocks); returns how many it claimed.
    @discardableResult
    func sendDue(_ job: Job) throws(StorageError) -> Int {
        let claims = try job.claim(dueBy: now(), lease: settings.lease, limit: settings.batch)
        guard !claims.isEmpty else { return 0 }
        let outcomes = sendBatch(claims, of: job)
        // One write for the batch: a row at a time, the sender's commits
        // competed with the posts' for the disk.
        let counted = try job.settle(claims, outcomes, at: now())
        // Counted once written: whoever reads a count then finds the row
        // as it says.
        counts.withLock { counts in
            for outcome in counted { counts[outcome, default: 0] += 1 }
        }
        try job.settled(claims, counted)
        return claims.count
    }

    /// Keeps the batch's task where `stop` finds it, for as long as `wait`
    /// waits for it.
    func whileUnderWay<Result>(_ task: Task<Void, Never>, _ wait: () -> Result) -> Result {
        let stopping = state.withLock { state in
            state.batch = task
            return state.stopping
        }
        if stopping { task.cancel() }
        defer { state.withLock { $0.batch = nil } }
        return wait()
    }
}
