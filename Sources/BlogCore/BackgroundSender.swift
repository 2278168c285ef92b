import Dispatch
import Foundation
import Logging
import Synchronization
import BlogModel

/// The loop of the background senders (Webmentions, ActivityPub
/// deliveries): a thread of its own that keeps a window of claims under
/// way (`SendWindow`). It claims due rows under a lease at the start, on
/// a wake-up (after a short gathering wait, so that a burst of posts is
/// claimed in a few writes), every `pollInterval`, and at once again
/// while claims come full and the window has room; the window sends them
/// as tasks on `OutgoingExecutor`, bounded per host and in all across
/// everything under way, so that a host that never answers holds up only
/// its own claims. What finished is settled in groups (when a batch's
/// worth has, or the first of a group after the gathering wait, or all
/// under way), one write each, and its outcomes counted.
///
/// The sender does not keep its job: `start` hands it to the thread,
/// `sendDue` takes it for one batch, so a job may own its sender.
///
///     let loop = BackgroundSender<Job>(thread: "blogd-x", queue: "x queue", settings: pace, now: Date.init, logger: logger)
///     loop.start(job)
///     loop.wake()
///     loop.stop()
final class BackgroundSender<Job: BackgroundJob>: Sendable {
    struct Settings: Sendable {
        /// Rows claimed at once; also how many finished sends make a
        /// settle (one write) without waiting for more.
        var batch: Int
        /// How long a claim hides a row from other claims: far longer
        /// than a claim is held (see `window`).
        var lease: Double
        /// Sends at once to one host.
        var perHost: Int = 1
        /// Sends at once in all.
        var concurrency: Int = .max
        /// Claims held at once (waiting, being sent, not yet settled), in
        /// batches. A claim waits at most for the claims of its own host
        /// ahead of it in the window, `perHost` at a time.
        var window: Int = 4
        /// Claims of one host the window holds (waiting or being sent)
        /// past which a claim passes the host by; a claim takes at most
        /// this many of one host, so the window never holds twice as many.
        /// A host with hundreds of due rows in a row then fills a few
        /// places, not the window. `.max`: no bound (a job whose queue
        /// cannot choose by host).
        var heldPerHost: Int = .max
        /// Seconds between looks when nothing woke the sender; nil: only
        /// `wake()` (tests, which move the clock themselves).
        var pollInterval: Double?
        /// Seconds a wake-up waits before the look.
        var gather: Double
    }

    private struct State {
        var running = false
        var stopping = false
        /// A wake-up: look at the queue.
        var woken = false
        /// Sends finished: settle them.
        var finished = false
        /// The windows under way (the loop's, `sendDue`'s), cancelled by `stop`.
        var windows: [ObjectIdentifier: SendWindow<Job>] = [:]
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
    func wake() { nudge(\.woken) }

    /// Stops the thread: the sends under way are cancelled and settled as
    /// the job says (due again after their backoff), and so are the claims
    /// still waiting for their host; what is not claimed waits in the
    /// store for the next start.
    func stop() {
        let (wasRunning, windows) = state.withLock { state in
            defer { state.stopping = true }
            return (state.running && !state.stopping, Array(state.windows.values))
        }
        windows.forEach { $0.cancel() }
        guard wasRunning else { return }
        signal.signal()
        stopped.wait()
    }

    /// Claims waiting for a slot or being sent, in all the windows (tests).
    var underWay: Int { state.withLock { $0.windows.values.reduce(0) { $0 + $1.underWay } } }

    /// How many claims came to `outcome` since the start.
    func count(_ outcome: Job.Outcome) -> Int { counts.withLock { $0[outcome, default: 0] } }

    /// Sets `flag` and signals the thread, unless a signal is already
    /// waiting for it.
    private func nudge(_ flag: WritableKeyPath<State, Bool>) {
        let signalled = state.withLock { state in
            defer { state[keyPath: flag] = true }
            return !state.woken && !state.finished
        }
        if signalled { signal.signal() }
    }

    private func loop(_ job: Job) {
        defer { stopped.signal() }
        let window = SendWindow(job: job, perHost: settings.perHost, concurrency: settings.concurrency,
                                settleEvery: settings.batch) { [self] in nudge(\.finished) }
        let held = max(1, settings.window) * settings.batch
        _ = track(window)
        defer { untrack(window) }
        // Claim on this pass: the start, a wake-up, the poll, or a full
        // claim (there may be more due) not yet followed.
        var look = true
        // The last claim passed crowded hosts by: when sends finish, their
        // hosts may have room again for the rows left behind.
        var passedBy = false
        while !state.withLock({ $0.stopping }) {
            look = state.withLock { state in
                defer { (state.woken, state.finished) = (false, false) }
                return state.woken || (state.finished && passedBy)
            } || look
            settleFinished(window, of: job)
            if look {
                do {
                    var more = try job.prepare()
                    let room = held - window.held
                    if room > 0 {
                        let limit = min(settings.batch, room)
                        let bounded = settings.heldPerHost < .max
                        // Read once, before the claim: what the claim skips
                        // and what it fills both come from this, not from
                        // the window after the add, which sends finishing
                        // meanwhile may have emptied again.
                        let heldBefore = bounded ? window.heldByHost() : [:]
                        let crowded = Set(heldBefore.filter { $0.value >= settings.heldPerHost }.keys)
                        let claims = try job.claim(dueBy: now(), lease: settings.lease, limit: limit,
                                                   skipping: crowded, perHost: settings.heldPerHost)
                        // A claim cut short by the bound may leave rows due
                        // behind the hosts it filled: look again past them.
                        let filled = bounded && Self.fills(claims.map(job.host(of:)), heldBefore: heldBefore,
                                                           bound: settings.heldPerHost)
                        window.add(claims)
                        more = more || claims.count >= limit || filled
                        passedBy = !crowded.isEmpty || filled
                    } else {
                        more = true
                    }
                    look = more
                } catch {
                    logger.warning("\(queue) unreadable", metadata: ["error": "\(error)"])
                    look = false
                }
            }
            // Room for more that may be due: at once. A full window waits
            // for its sends to finish (they signal).
            if look && window.held < held { continue }
            if let interval = settings.pollInterval {
                if signal.wait(timeout: .now() + interval) == .timedOut { look = true }
            } else {
                signal.wait()
            }
            if settings.gather > 0, !state.withLock({ $0.stopping }) {
                Thread.sleep(forTimeInterval: settings.gather)
            }
        }
        window.cancel()
        window.waitUntilIdle()
        settleFinished(window, of: job)
    }

    /// Whether a claim of rows for `hosts` (one entry a row) brought a host
    /// to `bound` with what the window held of it before (`heldBefore`):
    /// the claim took no more of that host, so rows of it may be due still
    /// and rows of other hosts behind them; the loop then looks again at
    /// once. Decided from the claim alone, so no send finishing between
    /// the claim and this look can hide it (and leave those rows to the
    /// next poll).
    static func fills(_ hosts: [String], heldBefore: [String: Int], bound: Int) -> Bool {
        var held = heldBefore
        for host in hosts {
            held[host, default: 0] += 1
            if held[host]! >= bound { return true }
        }
        return false
    }

    /// Settles what the window finished, if anything; a store that fails
    /// leaves those claims to their lease.
    private func settleFinished(_ window: SendWindow<Job>, of job: Job) {
        let (claims, outcomes) = window.takeFinished()
        guard !claims.isEmpty else { return }
        do {
            try settle(claims, outcomes, of: job)
        } catch {
            logger.warning("\(queue) unwritable", metadata: ["error": "\(error)", "claims": "\(claims.count)"])
        }
    }

    /// Claims one batch of due rows, sends them (bounded as the loop's
    /// are) and settles them, on the caller's thread, which it blocks;
    /// returns how many it claimed.
    @discardableResult
    func sendDue(_ job: Job) throws(StorageError) -> Int {
        let claims = try job.claim(dueBy: now(), lease: settings.lease, limit: settings.batch)
        guard !claims.isEmpty else { return 0 }
        let window = SendWindow(job: job, perHost: settings.perHost, concurrency: settings.concurrency,
                                settleEvery: .max) {}
        if !track(window) { window.cancel() }
        defer { untrack(window) }
        window.add(claims)
        window.waitUntilIdle()
        let (sent, outcomes) = window.takeFinished()
        try settle(sent, outcomes, of: job)
        return claims.count
    }

    /// Writes what came of `claims` in one write (a row at a time, the
    /// sender's commits competed with the posts' for the disk), then
    /// counts it: whoever reads a count then finds the row as it says.
    private func settle(_ claims: [Job.Claim], _ outcomes: [Job.Outcome], of job: Job) throws(StorageError) {
        let counted = try job.settle(claims, outcomes, at: now())
        counts.withLock { counts in
            for outcome in counted { counts[outcome, default: 0] += 1 }
        }
        try job.settled(claims, counted)
    }

    /// Keeps `window` where `stop` finds it; false when stopping already.
    private func track(_ window: SendWindow<Job>) -> Bool {
        state.withLock { state in
            state.windows[ObjectIdentifier(window)] = window
            return !state.stopping
        }
    }

    private func untrack(_ window: SendWindow<Job>) {
        _ = state.withLock { $0.windows.removeValue(forKey: ObjectIdentifier(window)) }
    }
}
