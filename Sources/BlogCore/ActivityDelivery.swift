import Foundation
import Logging
import BlogModel

/// Sends the activities the post paths queued (`ActivityQueue`) to the
/// blogs' followers, in the background: fans each queued activity out to
/// one delivery per inbox (its JSON rendered once, so every inbox and
/// every retry gets the same bytes), claims the due deliveries, POSTs each
/// signed with its blog's key, and settles the batch in one write: done,
/// due again after an exponential backoff, or given up (refused, or failing
/// for `Settings.giveUpAfter`).
///
/// Its `BackgroundSender` runs the loop: one thread of its own makes the
/// storage calls (they block); the sends of every claim under way run as
/// tasks on `OutgoingExecutor`, at most `Settings.perHost` at once to one
/// host and `Settings.concurrency` in all, so a host that never answers
/// holds up only its own deliveries. Claims are leased in the database, so another instance on the same
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
        /// Deliveries a fan-out writes in one transaction: a post to
        /// 10,000 inboxes holds the writer (and the posts waiting for it)
        /// for a chunk at a time, not for all of them.
        public var fanOutChunk: Int = 40
        /// Sends at once to one host (its inboxes' authority).
        public var perHost: Int = 2
        /// Sends at once in all.
        public var concurrency: Int = 32
        /// Deliveries to one host the sender's window holds (waiting or
        /// being sent) before its claims pass that host by (a claim takes
        /// at most this many of one host): a host with hundreds of
        /// followers' own inboxes that never answers holds a few places in
        /// the window, not all of them.
        public var heldPerHost: Int = 4
        /// Seconds before the first retry; each next one waits twice as long.
        public var firstRetry: Double = 60
        /// The longest wait between two tries.
        public var maxRetry: Double = 6 * 3600
        /// Seconds after the fan-out past which a failing delivery is given up.
        public var giveUpAfter: Double = 3 * 86400
        /// How long a claim hides a delivery from other claims: well past
        /// the time a claim is held (at worst a host's claims in the
        /// window, `perHost` at a time, each until the time limit).
        public var lease: Double = DeliveryClaim.lease
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
            Backoff.delay(afterAttempt: attempts, first: firstRetry, longest: maxRetry)
        }
    }

    /// What became of one delivery.
    public enum Outcome: String, Sendable, CaseIterable {
        /// The inbox took it (2xx).
        case delivered
        /// Failed for now; due again later.
        case retry
        /// Failed for now because its host did not answer (no answer in
        /// time, no connection, 408, 429, 5xx): due again later, and so
        /// are its host's other due deliveries (`DeliverySettlement.hostDown`).
        /// What a send returns; settled, it counts as `retry`.
        case hostDown = "host_down"
        /// Failed for good: refused, a 4xx that will not change, or tried
        /// for longer than `giveUpAfter`.
        case givenUp = "given_up"
        /// The inbox answered 410 Gone: given up, and its followers removed.
        case gone
    }

    public let settings: Settings
    private let storage: any BlogStorage
    private let http: any OutgoingHTTP
    private let signer: any RequestSigner
    private let renderer: any ActivityRenderer
    private let baseURL: String
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let loop: BackgroundSender<ActivityDelivery>
    private let signing: SigningThreads

    /// - Parameters:
    ///   - baseURL: `BlogConfig.effectiveBaseURL`: actors and key ids are under it.
    ///   - now: the clock of due times, backoff and giving up (tests move it by hand).
    ///   - signing: the threads that sign (and copy each body), below the
    ///     requests' priority.
    public init(storage: any BlogStorage, http: any OutgoingHTTP, signer: any RequestSigner,
                renderer: any ActivityRenderer = MinimalActivityRenderer(), baseURL: String,
                settings: Settings = Settings(), now: @escaping @Sendable () -> Date = Date.init,
                signing: SigningThreads = .shared,
                logger: Logger = Logger(label: "blogd.activitypub.delivery")) {
        self.signing = signing
        self.storage = storage
        self.http = http
        self.signer = signer
        self.renderer = renderer
        self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        self.settings = settings
        self.now = now
        self.logger = logger
        loop = BackgroundSender(thread: "blogd-activitypub", queue: "activity queue",
                                settings: .init(batch: settings.batch, lease: settings.lease, perHost: settings.perHost,
                                                concurrency: settings.concurrency, heldPerHost: settings.heldPerHost,
                                                pollInterval: settings.pollInterval,
                                                gather: settings.gather),
                                now: now, logger: logger)
        _ = ActivityDeliveryMetrics.shared
    }

    /// The key id of `user`'s actor: what a signature names.
    public func keyID(user: String) -> String { baseURL + "ap/\(user)#main-key" }

    /// Starts the worker's thread, which looks at the queue at once.
    public func start() { loop.start(self) }

    /// Something was queued, or the clock moved: look now.
    public func wake() { loop.wake() }

    /// Stops the thread: the sends under way are cancelled and settled
    /// (due again after their backoff; one whose answer was lost may
    /// arrive twice, which inboxes take in their stride: activities have
    /// ids); what is not claimed waits in the database for the next start.
    public func stop() { loop.stop() }

    /// How many deliveries came to each outcome since the start (for tests).
    public func count(_ outcome: Outcome) -> Int { loop.count(outcome) }

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
            var made = 0
            if let body {
                // In chunks, each its own commit that reads its followers
                // then (one removed or blocked meanwhile gets no more); the
                // activity keeps the point reached, so a crash midway loses
                // and repeats nothing.
                var step = FanOutStep(made: 0, done: false)
                while !step.done {
                    step = try storage.fanOutStep(activity, body: body, rows: settings.fanOutChunk, at: now())
                    made += step.made
                }
            } else {
                made = try storage.fanOut(activity, body: nil, at: now())
            }
            logger.debug("activity fanned out", metadata: ["activity": "\(activity.id)", "kind": "\(activity.kind)",
                                                           "deliveries": "\(made)"])
        }
        return activities.count
    }

    /// Claims one batch of due deliveries, sends them and settles them;
    /// returns how many it claimed.
    @discardableResult
    public func sendDue() throws(StorageError) -> Int { try loop.sendDue(self) }

    /// An inbox that answered 410, and whose followers it was.
    private struct GoneInbox: Hashable {
        var userID: Int64
        var inbox: String
    }

    /// What a send needs of its blog: the key id and private key.
    struct Credentials: Sendable {
        var keyID: String
        var key: String
    }

    /// What becomes of one delivery, and the outcome it counts as.
    private func settlement(_ delivery: OutgoingDelivery, _ outcome: Outcome, at now: Date) -> (DeliverySettlement, Outcome) {
        var final = outcome
        var result = DeliverySettlement.done
        switch outcome {
        case .delivered:
            result = .done
        case .givenUp, .gone:
            result = .givenUp
        case .retry, .hostDown:
            if now.timeIntervalSince(delivery.createdAt) >= settings.giveUpAfter {
                final = .givenUp
                result = .givenUp
                logger.info("activity delivery given up", metadata: ["inbox": "\(delivery.inbox)",
                                                                     "attempts": "\(delivery.attempts)"])
            } else {
                let at = now + settings.retryDelay(afterAttempt: delivery.attempts)
                final = .retry
                result = outcome == .hostDown ? .hostDown(retryAt: at, now: now) : .retry(at: at)
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
        // Signed now, not at the claim: the Date it signs must be fresh
        // when the inbox reads it, however long the host's lane waited.
        // Signed on the signing thread, below the requests' priority.
        let body: [UInt8], signature: [(String, String)]
        do {
            (body, signature) = try await signing.run { [signer, now] in
                let body = Array(delivery.body.utf8)
                return (body, try signer.signatureHeaders(method: "POST", url: delivery.inbox, body: body,
                                                          keyID: credentials.keyID, privateKeyPEM: credentials.key,
                                                          date: now()))
            }
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
            // Stopping cancels the sends under way: that says nothing of the host.
            return Task.isCancelled ? .retry : .hostDown
        }
    }

    /// An inbox's answer: 2xx done; 401 and 403 retried (the inbox may
    /// fetch our key late: its host did answer); 408, 429 and 5xx retried
    /// with the host's other due deliveries (the host is down, slow or
    /// asks us to wait); 410 gone; any other status will not change.
    static func outcome(status: Int) -> Outcome {
        switch status {
        case 200..<300: .delivered
        case 401, 403: .retry
        case 408, 429, 500...: .hostDown
        case 410: .gone
        default: .givenUp
        }
    }
}

extension ActivityDelivery: BackgroundJob {
    /// A claimed delivery, and its blog's key (nil: none yet).
    struct Claim: Sendable {
        var delivery: OutgoingDelivery
        var credentials: Credentials?
    }

    func prepare() throws(StorageError) -> Bool { try fanOutDue() >= settings.fanOutBatch }

    func claim(dueBy now: Date, lease: Double, limit: Int) throws(StorageError) -> [Claim] {
        try withCredentials(storage.claimDeliveries(dueBy: now, lease: lease, limit: limit))
    }

    func claim(dueBy now: Date, lease: Double, limit: Int, skipping: Set<String>,
               perHost: Int) throws(StorageError) -> [Claim] {
        try withCredentials(storage.claimDeliveries(dueBy: now, lease: lease, limit: limit, skippingHosts: skipping,
                                                    perHost: perHost))
    }

    /// Claims with their blogs' keys.
    private func withCredentials(_ claimed: [OutgoingDelivery]) throws(StorageError) -> [Claim] {
        var credentials: [Int64: Credentials] = [:]
        for userID in Set(claimed.map(\.userID)) {
            guard let user = try storage.user(id: userID), let key = try storage.actorKey(ofUserID: userID) else { continue }
            credentials[userID] = Credentials(keyID: keyID(user: user.name), key: key.privatePEM)
        }
        return claimed.map { Claim(delivery: $0, credentials: credentials[$0.userID]) }
    }

    func host(of claim: Claim) -> String { claim.delivery.host }

    func send(_ claim: Claim) async -> Outcome { await send(claim.delivery, as: claim.credentials) }

    func settle(_ claims: [Claim], _ outcomes: [Outcome], at now: Date) throws(StorageError) -> [Outcome] {
        var finals: [Outcome] = []
        let results = zip(claims, outcomes).map { claim, outcome in
            let (result, final) = settlement(claim.delivery, outcome, at: now)
            finals.append(final)
            return (delivery: claim.delivery, settlement: result)
        }
        try storage.settleDeliveries(results)
        return finals
    }

    /// Counts the batch, and removes the followers of the inboxes gone.
    func settled(_ claims: [Claim], _ outcomes: [Outcome]) throws(StorageError) {
        var gone: Set<GoneInbox> = []
        for (claim, outcome) in zip(claims, outcomes) {
            ActivityDeliveryMetrics.shared.count(outcome)
            if outcome == .gone { gone.insert(GoneInbox(userID: claim.delivery.userID, inbox: claim.delivery.inbox)) }
        }
        for target in gone {
            let removed = try storage.removeFollowers(ofUserID: target.userID, deliveryInbox: target.inbox)
            logger.info("inbox gone: followers removed", metadata: ["inbox": "\(target.inbox)", "followers": "\(removed)"])
        }
    }
}
