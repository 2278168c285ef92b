import Dispatch
import Foundation
import Logging
import Synchronization
import BlogModel

/// Sends the activities the post paths queued (`ActivityQueue`) to the
/// blogs' followers, in the background: fans each queued activity out to
/// one delivery per inbox (its JSON rendered once, so every inbox and
/// every retry gets the same bytes), claims the due deliveries, POSTs each
/// signed with its blog's key, and settles the batch in one write: done,
/// due again after an exponential backoff, or given up (refused, or failing
/// for `Settings.giveUpAfter`).
///
/// One thread of its own makes the storage calls (they block); the sends
/// of a batch run as tasks on `OutgoingExecutor`, at most
/// `Settings.perHost` at once to one host and `Settings.concurrency` in
/// all. Claims are leased in the database, so another instance on the same
/// database, or this one after a restart, sends a delivery only once its
/// holder is done or gone.
///
///     let delivery = ActivityDelivery(storage: storage, http: fetcher, signer: signer, baseURL: base)
///     delivery.start()
///     service.activitiesQueued { delivery.wake() }
public final class ActivityDelivery: Sendable {
    public struct Settings: Sendable {
        /// Deliveries claimed at once (settled in one write).
        public var batch: Int = 64
        /// Queued activities fanned out in one look.
        public var fanOutBatch: Int = 16
        /// Sends at once to one host (its inboxes' authority).
        public var perHost: Int = 2
        /// Sends at once in all.
        public var concurrency: Int = 32
        /// Seconds before the first retry; each next one waits twice as long.
        public var firstRetry: Double = 60
        /// The longest wait between two tries.
        public var maxRetry: Double = 6 * 3600
        /// Seconds after the fan-out past which a failing delivery is given up.
        public var giveUpAfter: Double = 3 * 86400
        /// How long a claim hides a delivery from other claims: well past
        /// the time a batch takes (a host's sends one after another).
        public var lease: Double = 1800
        /// Bytes of an inbox's answer read (only its status counts).
        public var answerBytes: Int = 16 << 10
        /// Seconds between looks when nothing woke the worker (retries
        /// come due, other instances' queue); nil: only `wake()` (tests).
        public var pollInterval: Double? = 30
        /// Seconds a wake-up waits before looking, so that a burst of
        /// posts is fanned out and claimed in a few writes.
        public var gather: Double = 0.25

        public init() {}

        /// The wait after the `attempts`-th try failed.
        public func retryDelay(afterAttempt attempts: Int) -> Double {
            let doubling = pow(2, Double(max(0, min(attempts - 1, 40))))
            return min(maxRetry, firstRetry * doubling)
        }
    }

    /// What became of one delivery.
    public enum Outcome: String, Sendable, CaseIterable {
        /// The inbox took it (2xx).
        case delivered
        /// Failed for now; due again later.
        case retry
        /// Failed for good: refused, a 4xx that will not change, or tried
        /// for longer than `giveUpAfter`.
        case givenUp = "given_up"
        /// The inbox answered 410 Gone: given up, and its followers removed.
        case gone
    }

    private struct State {
        var running = false
        var stopping = false
        var woken = false
        var batch: Task<Void, Never>?
    }

    public let settings: Settings
    private let storage: any BlogStorage
    private let http: any OutgoingHTTP
    private let signer: any RequestSigner
    private let renderer: any ActivityRenderer
    private let baseURL: String
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let counts = Mutex<[Outcome: Int]>([:])

    /// - Parameters:
    ///   - baseURL: `BlogConfig.effectiveBaseURL`: actors and key ids are under it.
    ///   - now: the clock of due times, backoff and giving up (tests move it by hand).
    public init(storage: any BlogStorage, http: any OutgoingHTTP, signer: any RequestSigner,
                renderer: any ActivityRenderer = MinimalActivityRenderer(), baseURL: String,
                settings: Settings = Settings(), now: @escaping @Sendable () -> Date = Date.init,
                logger: Logger = Logger(label: "blogd.activitypub.delivery")) {
        self.storage = storage
        self.http = http
        self.signer = signer
        self.renderer = renderer
        self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        self.settings = settings
        self.now = now
        self.logger = logger
        _ = ActivityDeliveryMetrics.shared
    }

    /// The key id of `user`'s actor: what a signature names.
    public func keyID(user: String) -> String { baseURL + "ap/\(user)#main-key" }

    /// Starts the worker's thread, which looks at the queue at once.
    public func start() {
        let thread: Thread? = state.withLock { state in
            guard !state.running else { return nil }
            state.running = true
            let thread = Thread { [self] in self.loop() }
            thread.name = "blogd-activitypub"
            return thread
        }
        thread?.start()
    }

    /// Something was queued, or the clock moved: look now.
    public func wake() {
        let signalled = state.withLock { state in
            guard !state.woken else { return false }
            state.woken = true
            return true
        }
        if signalled { signal.signal() }
    }

    /// Stops the thread: the sends under way are cancelled and settled
    /// (due again after their backoff; one whose answer was lost may
    /// arrive twice, which inboxes take in their stride: activities have
    /// ids); what is not claimed waits in the database for the next start.
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

    /// How many deliveries came to each outcome since the start (for tests).
    public func count(_ outcome: Outcome) -> Int { counts.withLock { $0[outcome, default: 0] } }

    private func loop() {
        defer { stopped.signal() }
        while !state.withLock({ $0.stopping }) {
            state.withLock { $0.woken = false }
            var busy = false
            do {
                busy = try fanOutDue() >= settings.fanOutBatch
                busy = try sendDue() >= settings.batch || busy
            } catch {
                logger.warning("activity queue unreadable", metadata: ["error": "\(error)"])
            }
            // A full batch: there may be more at once.
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

    /// Fans out one batch of queued activities; returns how many it took.
    @discardableResult
    public func fanOutDue() throws(StorageError) -> Int {
        let activities = try storage.queuedActivities(limit: settings.fanOutBatch)
        guard !activities.isEmpty else { return 0 }
        var users: [Int64: UserRecord?] = [:]
        let posts = Dictionary(try storage.posts(ids: activities.filter { $0.kind != .delete }.map(\.postID))
                                   .map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for activity in activities {
            if users[activity.userID] == nil { users[activity.userID] = try storage.user(id: activity.userID) }
            let body = users[activity.userID]!.flatMap {
                renderer.render(activity, user: $0, post: posts[activity.postID], baseURL: baseURL)
            }
            let made = try storage.fanOut(activity, body: body, at: now())
            logger.debug("activity fanned out", metadata: ["activity": "\(activity.id)", "kind": "\(activity.kind)",
                                                           "deliveries": "\(made)"])
        }
        return activities.count
    }

    /// Claims one batch of due deliveries, sends them and settles them;
    /// returns how many it claimed.
    @discardableResult
    public func sendDue() throws(StorageError) -> Int {
        let claimed = try storage.claimDeliveries(dueBy: now(), lease: settings.lease, limit: settings.batch)
        guard !claimed.isEmpty else { return 0 }
        var credentials: [Int64: Credentials] = [:]
        for userID in Set(claimed.map(\.userID)) {
            guard let user = try storage.user(id: userID), let key = try storage.actorKey(ofUserID: userID) else { continue }
            credentials[userID] = Credentials(keyID: keyID(user: user.name), key: key.privatePEM)
        }
        let outcomes = run(claimed.map { ($0, credentials[$0.userID]) })
        var gone: Set<GoneInbox> = []
        var finals: [Outcome] = []
        let results = zip(claimed, outcomes).map { delivery, outcome in
            if outcome == .gone { gone.insert(GoneInbox(userID: delivery.userID, inbox: delivery.inbox)) }
            let (result, final) = settlement(delivery, outcome)
            finals.append(final)
            return (delivery: delivery, settlement: result)
        }
        // One write for the batch: a delivery at a time, the worker's
        // commits would compete with the posts'.
        try storage.settleDeliveries(results)
        // Counted once written: what the counts say is in the database.
        for final in finals {
            counts.withLock { $0[final, default: 0] += 1 }
            ActivityDeliveryMetrics.shared.count(final)
        }
        for target in gone {
            let removed = try storage.removeFollowers(ofUserID: target.userID, deliveryInbox: target.inbox)
            logger.info("inbox gone: followers removed", metadata: ["inbox": "\(target.inbox)", "followers": "\(removed)"])
        }
        return claimed.count
    }

    /// An inbox that answered 410, and whose followers it was.
    private struct GoneInbox: Hashable {
        var userID: Int64
        var inbox: String
    }

    /// What a send needs of its blog: the key id and private key.
    private struct Credentials: Sendable {
        var keyID: String
        var key: String
    }

    /// Sends every job, at most `perHost` at once to one host and
    /// `concurrency` in all, blocking this thread until all are done.
    private func run(_ jobs: [(OutgoingDelivery, Credentials?)]) -> [Outcome] {
        // Each host's deliveries in `perHost` lanes; a lane sends one after another.
        var byHost: [String: [Int]] = [:]
        for (index, job) in jobs.enumerated() { byHost[job.0.host, default: []].append(index) }
        var lanes: [[Int]] = []
        for indexes in byHost.values {
            let count = max(1, min(settings.perHost, indexes.count))
            lanes += (0..<count).map { lane in stride(from: lane, to: indexes.count, by: count).map { indexes[$0] } }
        }
        let limit = max(1, settings.concurrency)
        let box = DeliveryOutcomes(count: jobs.count)
        let task = Task(executorPreference: OutgoingExecutor.shared) { [self, lanes] in
            let found = await withTaskGroup(of: [(Int, Outcome)].self) { group in
                var next = 0
                func addLane() {
                    let lane = lanes[next]
                    next += 1
                    group.addTask {
                        var outcomes: [(Int, Outcome)] = []
                        for index in lane { outcomes.append((index, await self.send(jobs[index].0, as: jobs[index].1))) }
                        return outcomes
                    }
                }
                while next < min(limit, lanes.count) { addLane() }
                var all: [(Int, Outcome)] = []
                for await outcomes in group {
                    all += outcomes
                    if next < lanes.count { addLane() }
                }
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

    /// What becomes of one delivery, and the outcome it counts as.
    private func settlement(_ delivery: OutgoingDelivery, _ outcome: Outcome) -> (DeliverySettlement, Outcome) {
        var final = outcome
        var result = DeliverySettlement.done
        switch outcome {
        case .delivered:
            result = .done
        case .givenUp, .gone:
            result = .givenUp
        case .retry:
            let at = now()
            if at.timeIntervalSince(delivery.createdAt) >= settings.giveUpAfter {
                final = .givenUp
                result = .givenUp
                logger.info("activity delivery given up", metadata: ["inbox": "\(delivery.inbox)",
                                                                     "attempts": "\(delivery.attempts)"])
            } else {
                result = .retry(at: at + settings.retryDelay(afterAttempt: delivery.attempts))
            }
        }
        return (result, final)
    }

    /// POSTs one delivery's body to its inbox, signed.
    public func send(_ delivery: OutgoingDelivery, keyID: String, privateKeyPEM: String) async -> Outcome {
        await send(delivery, as: Credentials(keyID: keyID, key: privateKeyPEM))
    }

    private func send(_ delivery: OutgoingDelivery, as credentials: Credentials?) async -> Outcome {
        guard let credentials else {
            // Its blog has no key (yet): nothing can be signed.
            logger.warning("activity delivery without a key", metadata: ["user": "\(delivery.userID)"])
            return .retry
        }
        let body = Array(delivery.body.utf8)
        // Signed now, not at the claim: the Date it signs must be fresh
        // when the inbox reads it, however long the host's lane waited.
        let signature: [(String, String)]
        do {
            signature = try signer.signatureHeaders(method: "POST", url: delivery.inbox, body: body,
                                                    keyID: credentials.keyID, privateKeyPEM: credentials.key, date: now())
        } catch {
            logger.warning("activity delivery not signed", metadata: ["inbox": "\(delivery.inbox)", "error": "\(error)"])
            return .retry
        }
        let headers = [("Content-Type", "application/activity+json"), ("Accept", "application/activity+json")] + signature
        do {
            let answer = try await http.post(delivery.inbox, headers: headers, body: body, maxBytes: settings.answerBytes)
            return Self.outcome(status: answer.status)
        } catch {
            logger.info("activity delivery failed", metadata: ["inbox": "\(delivery.inbox)", "error": "\(error)"])
            if case .refused = error { return .givenUp }
            return .retry
        }
    }

    /// An inbox's answer: 2xx done; 401 and 403 retried (the inbox may
    /// fetch our key late), as are 408, 429 and 5xx; 410 gone; any other
    /// status will not change.
    static func outcome(status: Int) -> Outcome {
        switch status {
        case 200..<300: .delivered
        case 401, 403, 408, 429, 500...: .retry
        case 410: .gone
        default: .givenUp
        }
    }
}

/// The outcomes of one batch, handed from its task to the worker's thread.
private final class DeliveryOutcomes: Sendable {
    private let outcomes: Mutex<[ActivityDelivery.Outcome]>
    private let done = DispatchSemaphore(value: 0)

    init(count: Int) { outcomes = Mutex(Array(repeating: .retry, count: count)) }

    func finish(_ found: [(Int, ActivityDelivery.Outcome)]) {
        outcomes.withLock { all in
            for (index, outcome) in found { all[index] = outcome }
        }
        done.signal()
    }

    func wait() -> [ActivityDelivery.Outcome] {
        done.wait()
        return outcomes.withLock { $0 }
    }
}
