import Dispatch
import Foundation
import Logging
import Synchronization
import BlogModel
import BlogPages

/// Sends the Webmentions the post paths queued (`WebmentionOutbox`), in
/// the background: claims what is due, discovers each target's endpoint,
/// POSTs `source` (our post's page) and `target`, and finishes the row, or
/// retries it later with exponential backoff, giving up after
/// `Settings.maxAttempts`.
///
/// One thread of its own claims and records (storage calls block); the
/// sends of a batch run at once as tasks, one host's one after another,
/// so no host gets more than one of ours at a time from this sender. A
/// claim is leased in the database, so another instance on the same
/// database, or this one after a restart, takes a row only once its
/// holder is done or gone. Nothing here ever runs on a request's thread.
///
///     let sender = WebmentionSender(storage: storage, http: fetcher, baseURL: "https://blog.example.org/")
///     sender.start()
///     service.webmentionsQueued { sender.wake() }
public final class WebmentionSender: Sendable {
    public struct Settings: Sendable {
        /// Sends in one batch (claimed at once, settled in one write).
        public var batch: Int = 32
        /// Claims of one row before it is given up (the first send included).
        public var maxAttempts: Int = 8
        /// Seconds before the first retry; each next one waits twice as long.
        public var firstRetry: Double = 60
        /// The longest wait between two tries.
        public var maxRetry: Double = 6 * 3600
        /// How long a claim hides a row from other claims: well past any
        /// send's time limit.
        public var lease: Double = 1800
        /// Bytes of a target's page read to find its endpoint.
        public var discoveryBytes: Int = 1 << 20
        /// Bytes of an endpoint's answer read.
        public var answerBytes: Int = 64 << 10
        /// Seconds between looks at the outbox when nothing woke the
        /// sender (rows other instances queued, retries come due); nil:
        /// only `wake()` (tests, which move the clock themselves).
        public var pollInterval: Double? = 30
        /// Seconds a wake-up waits before claiming, so that a burst of
        /// posts is claimed and settled in a few writes rather than in
        /// two a post (each write competes with the posts' own commits).
        public var gather: Double = 0.25

        public init() {}

        /// The wait after the `attempts`-th try failed.
        public func retryDelay(afterAttempt attempts: Int) -> Double {
            let doubling = pow(2, Double(max(0, min(attempts - 1, 40))))
            return min(maxRetry, firstRetry * doubling)
        }
    }

    /// What became of one row.
    public enum Outcome: String, Sendable {
        /// The endpoint accepted it (2xx).
        case sent
        /// The target names no endpoint: nothing to send.
        case noEndpoint = "no_endpoint"
        /// Failed for good: a refused address or URL, a target or endpoint
        /// that said no (4xx), or too many tries.
        case failed
        /// Failed for now; due again later.
        case retry
        /// Its post's author is gone: nothing to say.
        case dropped
    }

    private struct State {
        var running = false
        var stopping = false
        var woken = false
        var thread: Thread?
        /// The sends under way, cancelled by `stop`.
        var batch: Task<Void, Never>?
    }

    public let settings: Settings
    private let storage: any BlogStorage
    private let http: any OutgoingHTTP
    private let baseURL: String
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let counts = Mutex<[Outcome: Int]>([:])

    /// - Parameters:
    ///   - baseURL: where the public folder is served: sources are its post pages.
    ///   - now: the clock of due times and backoff (tests move it by hand).
    public init(storage: any BlogStorage, http: any OutgoingHTTP, baseURL: String, settings: Settings = Settings(),
                now: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "blogd.webmention")) {
        self.storage = storage
        self.http = http
        self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        self.settings = settings
        self.now = now
        self.logger = logger
        _ = WebmentionMetrics.shared
    }

    /// The URL of post `id` of `user`: what the target is told links to it.
    public func source(user: String, postID: Int64) -> String {
        baseURL + PageRenderer.postFile(user: user, id: postID)
    }

    /// Starts the sender's thread, which looks at the outbox at once.
    public func start() {
        let thread: Thread? = state.withLock { state in
            guard !state.running else { return nil }
            state.running = true
            let thread = Thread { [self] in self.loop() }
            thread.name = "blogd-webmention"
            state.thread = thread
            return thread
        }
        thread?.start()
    }

    /// Something was queued, or the clock moved: look at the outbox now.
    public func wake() {
        let signalled = state.withLock { state in
            guard !state.woken else { return false }
            state.woken = true
            return true
        }
        if signalled { signal.signal() }
    }

    /// Stops the thread: the sends under way are cancelled (their rows
    /// are due again after their backoff; one whose answer was lost may
    /// be sent twice, which receivers take in their stride) and recorded;
    /// a row not yet claimed waits in the outbox for the next start.
    public func stop() {
        let (wasRunning, batch) = state.withLock { state in
            defer { state.stopping = true }
            return (state.running && !state.stopping, state.batch)
        }
        batch?.cancel()
        guard wasRunning else { return }
        signal.signal()
        stopped.wait()
    }

    /// How many rows came to each outcome since the start (for tests).
    public func count(_ outcome: Outcome) -> Int { counts.withLock { $0[outcome, default: 0] } }

    private func loop() {
        defer { stopped.signal() }
        while !state.withLock({ $0.stopping }) {
            state.withLock { $0.woken = false }
            var sent = 0
            do {
                sent = try sendDue()
            } catch {
                logger.warning("webmention outbox unreadable", metadata: ["error": "\(error)"])
            }
            // A full batch: there may be more due at once.
            if sent >= settings.batch { continue }
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

    /// Claims one batch of due rows, sends them and records what came of
    /// each; returns how many it claimed.
    @discardableResult
    public func sendDue() throws(StorageError) -> Int {
        let claimed = try storage.claimWebmentions(dueBy: now(), lease: settings.lease, limit: settings.batch)
        guard !claimed.isEmpty else { return 0 }
        var jobs: [(OutgoingWebmention, String?)] = []
        var names: [Int64: String?] = [:]
        for mention in claimed {
            if names[mention.userID] == nil { names[mention.userID] = try storage.user(id: mention.userID)?.name }
            jobs.append((mention, names[mention.userID]!.map { source(user: $0, postID: mention.postID) }))
        }
        let outcomes = run(jobs)
        let settled = zip(claimed, outcomes).map { settlement($0, $1) }
        // One write for the batch: a row at a time, the sender's commits
        // competed with the posts' for the disk.
        try storage.settleWebmentions(zip(claimed, settled).map { ($0, $1.retryAt) })
        // Counted once written: whoever reads a count then finds the row
        // as it says.
        for (_, final) in settled {
            counts.withLock { $0[final, default: 0] += 1 }
            WebmentionMetrics.shared.count(final)
        }
        return claimed.count
    }

    /// Sends every job (nil source: dropped), one host's one after
    /// another, blocking this thread until all are done.
    private func run(_ jobs: [(OutgoingWebmention, String?)]) -> [Outcome] {
        var byHost: [String: [Int]] = [:]
        for (index, job) in jobs.enumerated() where job.1 != nil {
            byHost[URL(string: job.0.target)?.host?.lowercased() ?? "", default: []].append(index)
        }
        let indexesByHost = Array(byHost.values)
        let sending = jobs.map { ($0.0.target, $0.1 ?? "") }
        let box = OutcomeBox(count: jobs.count)
        let task = Task(executorPreference: OutgoingExecutor.shared) { [self] in
            let found = await withTaskGroup(of: [(Int, Outcome)].self) { group in
                for indexes in indexesByHost {
                    group.addTask {
                        var outcomes: [(Int, Outcome)] = []
                        for index in indexes {
                            outcomes.append((index, await self.send(source: sending[index].1, target: sending[index].0)))
                        }
                        return outcomes
                    }
                }
                var all: [(Int, Outcome)] = []
                for await outcomes in group { all += outcomes }
                return all
            }
            box.finish(found)
        }
        let stopping = state.withLock { state in
            state.batch = task
            return state.stopping
        }
        if stopping { task.cancel() }
        defer { state.withLock { $0.batch = nil } }
        return box.wait()
    }

    /// What becomes of one row: finished (nil) or due again, and the
    /// outcome to count.
    private func settlement(_ mention: OutgoingWebmention, _ outcome: Outcome) -> (retryAt: Date?, final: Outcome) {
        var final = outcome
        var retryAt: Date?
        if outcome == .retry {
            if mention.attempts >= settings.maxAttempts {
                final = .failed
                logger.info("webmention given up", metadata: ["target": "\(mention.target)", "attempts": "\(mention.attempts)"])
                WebmentionMetrics.shared.givenUp.increment()
            } else {
                retryAt = now() + settings.retryDelay(afterAttempt: mention.attempts)
            }
        }
        return (retryAt, final)
    }

    /// Discovers `target`'s endpoint and POSTs `source` and `target` to it.
    public func send(source: String, target: String) async -> Outcome {
        let page: HTTPAnswer
        do {
            page = try await http.get(target, headers: [("Accept", "text/html, */*;q=0.5")],
                                      maxBytes: settings.discoveryBytes)
        } catch {
            return failure(error, target: target, step: "discovery")
        }
        // A 4xx target says there is nothing there (gone, or never): no
        // endpoint to find. A 5xx may come back.
        if page.status >= 500 || page.status == 429 || page.status == 408 { return .retry }
        guard (200..<300).contains(page.status), let endpoint = WebmentionDiscovery.endpoint(in: page) else {
            return .noEndpoint
        }
        do {
            let answer = try await http.postForm(endpoint, fields: [("source", source), ("target", target)],
                                                 maxBytes: settings.answerBytes)
            switch answer.status {
            case 200..<300:
                logger.info("webmention sent", metadata: ["target": "\(target)", "status": "\(answer.status)"])
                return .sent
            case 408, 429, 500...:
                return .retry
            default:
                logger.info("webmention refused", metadata: ["target": "\(target)", "status": "\(answer.status)"])
                return .failed
            }
        } catch {
            return failure(error, target: target, step: "send")
        }
    }

    private func failure(_ error: OutgoingHTTPError, target: String, step: String) -> Outcome {
        logger.info("webmention \(step) failed", metadata: ["target": "\(target)", "error": "\(error)"])
        if case .refused = error { return .failed }
        return .retry
    }
}

/// The outcomes of one batch, handed from its task to the sender's thread.
private final class OutcomeBox: Sendable {
    private let outcomes: Mutex<[WebmentionSender.Outcome]>
    private let done = DispatchSemaphore(value: 0)

    init(count: Int) { outcomes = Mutex(Array(repeating: .dropped, count: count)) }

    func finish(_ found: [(Int, WebmentionSender.Outcome)]) {
        outcomes.withLock { all in
            for (index, outcome) in found { all[index] = outcome }
        }
        done.signal()
    }

    func wait() -> [WebmentionSender.Outcome] {
        done.wait()
        return outcomes.withLock { $0 }
    }
}
