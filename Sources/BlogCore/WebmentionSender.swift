import Foundation
import Logging
import BlogModel
import BlogPages

/// Sends the Webmentions the post paths queued (`WebmentionOutbox`), in
/// the background: claims what is due, discovers each target's endpoint,
/// POSTs `source` (our post's page) and `target`, and finishes the row, or
/// retries it later with exponential backoff, giving up after
/// `Settings.maxAttempts`.
///
/// Its `BackgroundSender` runs the loop: one thread of its own claims and
/// records (storage calls block); the sends of every claim under way run
/// at once as tasks, one host's one after another, so no host gets more
/// than one of ours at a time from this sender, and one that never
/// answers holds up only its own host's rows. A claim is leased in the database, so
/// another instance on the same database, or this one after a restart,
/// takes a row only once its holder is done or gone. Nothing here ever
/// runs on a request's thread.
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
            Backoff.delay(afterAttempt: attempts, first: firstRetry, longest: maxRetry)
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

    public let settings: Settings
    private let storage: any BlogStorage
    private let http: any OutgoingHTTP
    private let baseURL: String
    private let logger: Logger
    private let loop: BackgroundSender<WebmentionSender>

    /// - Parameters:
    ///   - baseURL: where the public folder is served: sources are its post pages.
    ///   - now: the clock of due times and backoff (tests move it by hand).
    public init(storage: any BlogStorage, http: any OutgoingHTTP, baseURL: String, settings: Settings = Settings(),
                now: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "blogd.webmention")) {
        self.storage = storage
        self.http = http
        self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        self.settings = settings
        self.logger = logger
        loop = BackgroundSender(thread: "blogd-webmention", queue: "webmention outbox",
                                settings: .init(batch: settings.batch, lease: settings.lease,
                                                pollInterval: settings.pollInterval, gather: settings.gather),
                                now: now, logger: logger)
        _ = WebmentionMetrics.shared
    }

    /// The URL of post `id` of `user`: what the target is told links to it.
    public func source(user: String, postID: Int64) -> String {
        baseURL + PageRenderer.postFile(user: user, id: postID)
    }

    /// Starts the sender's thread, which looks at the outbox at once.
    public func start() { loop.start(self) }

    /// Something was queued, or the clock moved: look at the outbox now.
    public func wake() { loop.wake() }

    /// Stops the thread: the sends under way are cancelled (their rows
    /// are due again after their backoff; one whose answer was lost may
    /// be sent twice, which receivers take in their stride) and recorded;
    /// a row not yet claimed waits in the outbox for the next start.
    public func stop() { loop.stop() }

    /// How many rows came to each outcome since the start (for tests).
    public func count(_ outcome: Outcome) -> Int { loop.count(outcome) }

    /// Claims one batch of due rows, sends them and records what came of
    /// each; returns how many it claimed.
    @discardableResult
    public func sendDue() throws(StorageError) -> Int { try loop.sendDue(self) }

    /// What becomes of one row: finished (nil) or due again, and the
    /// outcome to count.
    private func settlement(_ mention: OutgoingWebmention, _ outcome: Outcome,
                            at now: Date) -> (retryAt: Date?, final: Outcome) {
        var final = outcome
        var retryAt: Date?
        if outcome == .retry {
            if mention.attempts >= settings.maxAttempts {
                final = .failed
                logger.info("webmention given up", metadata: ["target": "\(mention.target)", "attempts": "\(mention.attempts)"])
                WebmentionMetrics.shared.givenUp.increment()
            } else {
                retryAt = now + settings.retryDelay(afterAttempt: mention.attempts)
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

extension WebmentionSender: BackgroundJob {
    /// A claimed row, and its source (nil: its post's author is gone).
    struct Claim: Sendable {
        var mention: OutgoingWebmention
        var source: String?
    }

    func claim(dueBy now: Date, lease: Double, limit: Int) throws(StorageError) -> [Claim] {
        var claims: [Claim] = []
        var names: [Int64: String?] = [:]
        for mention in try storage.claimWebmentions(dueBy: now, lease: lease, limit: limit) {
            if names[mention.userID] == nil { names[mention.userID] = try storage.user(id: mention.userID)?.name }
            claims.append(Claim(mention: mention, source: names[mention.userID]!.map { source(user: $0, postID: mention.postID) }))
        }
        return claims
    }

    func host(of claim: Claim) -> String { URL(string: claim.mention.target)?.host?.lowercased() ?? "" }

    func send(_ claim: Claim) async -> Outcome {
        guard let source = claim.source else { return .dropped }
        return await send(source: source, target: claim.mention.target)
    }

    func settle(_ claims: [Claim], _ outcomes: [Outcome], at now: Date) throws(StorageError) -> [Outcome] {
        let settled = zip(claims, outcomes).map { settlement($0.mention, $1, at: now) }
        try storage.settleWebmentions(zip(claims, settled).map { ($0.mention, $1.retryAt) })
        return settled.map(\.final)
    }

    func settled(_ claims: [Claim], _ outcomes: [Outcome]) {
        for outcome in outcomes { WebmentionMetrics.shared.count(outcome) }
    }
}
