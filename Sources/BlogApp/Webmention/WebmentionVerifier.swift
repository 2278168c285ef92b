import BlogCore
import BlogFetch
import BlogModel
import Dispatch
import Foundation
import Synchronization

/// Verifies received Webmentions in the background (W3C Webmention 3.2.2):
/// fetches each source with the bounded `OutgoingFetcher`, checks that it
/// links to the target, reads its h-entry (`SourceReader`), and stores
/// what it found; a source that is gone (`410`, `404`) or no longer links
/// removes the Webmention, and a failure that may pass (a timeout, a
/// `5xx`) is tried again later, `maxAttempts` times at most, each wait
/// four times the last.
///
/// At most `concurrency` sources are verified at once; storage calls and
/// page writes run on a Dispatch queue, never on a request's thread.
public final class WebmentionVerifier: Sendable {
    public struct Settings: Sendable {
        public var concurrency: Int
        public var maxAttempts: Int
        /// The wait before the first retry; each later one is four times longer.
        public var firstRetry: Double
        /// How often the queue is looked at with no nudge (retries fall due).
        public var pollInterval: Duration

        public init(concurrency: Int = 4, maxAttempts: Int = 5, firstRetry: Double = 60,
                    pollInterval: Duration = .seconds(30)) {
            self.concurrency = max(1, concurrency)
            self.maxAttempts = max(1, maxAttempts)
            self.firstRetry = firstRetry
            self.pollInterval = pollInterval
        }
    }

    /// What one verification ended in.
    public enum Outcome: Sendable, Equatable {
        case verified
        case removed
        case retried
    }

    let service: BlogService
    let fetcher: OutgoingFetcher
    let settings: Settings
    let now: @Sendable () -> Date
    private let wake = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let nudged = Atomic<Bool>(false)
    private let loop = Mutex<Task<Void, Never>?>(nil)
    private let queue = DispatchQueue(label: "blogd.webmention", qos: .utility, attributes: .concurrent)

    public init(service: BlogService, fetcher: OutgoingFetcher, settings: Settings = Settings(),
                now: @escaping @Sendable () -> Date = Date.init) {
        self.service = service
        self.fetcher = fetcher
        self.settings = settings
        self.now = now
    }

    /// Starts the background loop: it verifies what is due whenever
    /// nudged, and every `pollInterval`.
    public func start() {
        loop.withLock { task in
            guard task == nil else { return }
            task = Task.detached(priority: .utility) { [self] in
                while !Task.isCancelled {
                    _ = await drain()
                    await sleepUntilNudged()
                }
            }
        }
    }

    public func stop() {
        loop.withLock { $0?.cancel(); $0 = nil }
        nudge()
    }

    /// Tells the loop a Webmention was queued: it looks at once.
    public func nudge() {
        nudged.store(true, ordering: .sequentiallyConsistent)
        wake.withLock { $0.take() }?.resume()
    }

    private func sleepUntilNudged() async {
        let timer = Task { [self] in
            try? await Task.sleep(for: settings.pollInterval)
            nudge()
        }
        await withCheckedContinuation { continuation in
            let now = wake.withLock { slot -> Bool in
                if nudged.exchange(false, ordering: .sequentiallyConsistent) { return true }
                slot = continuation
                return false
            }
            if now { continuation.resume() }
        }
        nudged.store(false, ordering: .sequentiallyConsistent)
        timer.cancel()
    }

    /// Verifies every Webmention due now, `concurrency` at a time; returns
    /// what became of each (by id).
    @discardableResult
    public func drain() async -> [Int64: Outcome] {
        var outcomes: [Int64: Outcome] = [:]
        while true {
            let due = (try? await offload { [self] in try service.storage.dueWebmentions(at: now(), limit: settings.concurrency * 4) }) ?? []
            let fresh = due.filter { outcomes[$0.id] == nil }
            guard !fresh.isEmpty else { return outcomes }
            await withTaskGroup(of: (Int64, Outcome).self) { group in
                var running = 0
                for mention in fresh {
                    if running == settings.concurrency, let (id, outcome) = await group.next() {
                        outcomes[id] = outcome
                        running -= 1
                    }
                    group.addTask { (mention.id, await self.verify(mention)) }
                    running += 1
                }
                for await (id, outcome) in group { outcomes[id] = outcome }
            }
        }
    }

    /// Verifies one Webmention and stores the result.
    public func verify(_ mention: Webmention) async -> Outcome {
        let fetched: FetchedResponse
        do {
            fetched = try await fetcher.get(mention.source, accept: "text/html, text/plain;q=0.5, */*;q=0.1")
        } catch {
            switch error {
            case .timedOut, .transport, .unresolvable: return await retry(mention)
            default: return await remove(mention)  // never fetchable: private, too large, not http(s)
            }
        }
        switch fetched.status {
        case 200..<300:
            guard let base = URL(string: fetched.url) else { return await remove(mention) }
            let reader = SourceReader(source: base, target: mention.target)
            guard let content = reader.read(body: fetched.text, contentType: fetched.header("content-type") ?? "text/html")
            else { return await remove(mention) }
            do {
                try await offload { [self] in try service.storeWebmentionVerification(id: mention.id, content: content) }
                return .verified
            } catch {
                return await retry(mention)
            }
        case 404, 410:
            return await remove(mention)
        case 429, 500..<600:
            return await retry(mention)
        default:
            return await remove(mention)
        }
    }

    private func retry(_ mention: Webmention) async -> Outcome {
        let attempts = mention.attempts + 1
        guard attempts < settings.maxAttempts else { return await remove(mention) }
        let wait = settings.firstRetry * pow(4, Double(attempts - 1))
        _ = try? await offload { [self] in
            try service.storage.deferVerification(id: mention.id, attempts: attempts, retryAt: now().addingTimeInterval(wait))
        }
        return .retried
    }

    private func remove(_ mention: Webmention) async -> Outcome {
        _ = try? await offload { [self] in try service.removeWebmention(id: mention.id, ofUserID: nil) }
        return .removed
    }

    /// Runs blocking storage and page work on the verifier's queue.
    private func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
