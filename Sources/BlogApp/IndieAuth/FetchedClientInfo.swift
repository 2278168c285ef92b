import BlogCore
import Foundation
import Synchronization

/// A `ClientInfoSource` that fetches the client_id URL through the
/// server's bounded outgoing requests (blogd's `OutgoingFetcher`: bytes,
/// time, no private addresses unless `outgoing_allow_private`) and reads
/// its metadata document or h-app page (`ClientPage`).
///
/// The authorization page's thread waits for the fetch at most
/// `Settings.wait` seconds; a failed, slow, huge or unreadable answer is
/// "nothing known" and the page shows the host. Answers (failures too)
/// are kept `lifetime` seconds in a cache of at most `capacity` entries,
/// so reloading the page, approving it and redeeming the code fetch once.
/// At most `concurrency` fetches are waited for at once (each holds one
/// of the page server's threads); past that, the host it is.
/// Callers spend the authorization budget before asking
/// (`WebClient.authorize`): a flood of client ids costs the flooding
/// address its budget, not blogd a fetch per request.
public final class FetchedClientInfo: ClientInfoSource {
    public struct Settings: Sendable {
        /// The most bytes of a client's page read (below the fetcher's own
        /// limit: a name and a few links need little).
        public var maxBytes: Int
        /// Seconds the page's thread waits, over the fetcher's time limit.
        public var wait: Double
        /// Seconds an answer is kept.
        public var lifetime: Double
        /// Seconds a failed fetch is remembered (the page shows the host).
        public var failureLifetime: Double
        /// Client ids remembered at once.
        public var capacity: Int
        /// Fetches waited for at once: each holds a page thread, so past
        /// this many the page names the app by its host instead of waiting.
        public var concurrency: Int

        public init(maxBytes: Int = 64 * 1024, wait: Double = 11, lifetime: Double = 300, failureLifetime: Double = 60,
                    capacity: Int = 256, concurrency: Int = 4) {
            self.maxBytes = maxBytes
            self.wait = wait
            self.lifetime = lifetime
            self.failureLifetime = failureLifetime
            self.capacity = max(1, capacity)
            self.concurrency = max(1, concurrency)
        }
    }

    private struct Entry {
        var info: ClientInfo?
        var expires: Date
    }

    public let settings: Settings
    private let http: any OutgoingHTTP
    private let now: @Sendable () -> Date
    private let cache = Mutex<[String: Entry]>([:])
    private let underWay = Mutex(0)

    public init(http: any OutgoingHTTP, settings: Settings = Settings(), now: @escaping @Sendable () -> Date = Date.init) {
        self.http = http
        self.settings = settings
        self.now = now
    }

    public func clientInfo(for clientID: ClientID) -> ClientInfo? {
        let moment = now()
        if let entry = cache.withLock({ $0[clientID.text] }), entry.expires > moment { return entry.info }
        guard underWay.withLock({ count in
            guard count < settings.concurrency else { return false }
            count += 1
            return true
        }) else { return nil }  // not remembered: the next request may fetch
        defer { underWay.withLock { $0 -= 1 } }
        let info: ClientInfo?
        switch http.getWaiting(clientID.text, headers: [("Accept", "application/json, text/html;q=0.9")],
                               maxBytes: settings.maxBytes, within: settings.wait) {
        case .success(let answer): info = ClientPage.read(answer, for: clientID)
        case .failure: info = nil
        }
        remember(info, for: clientID.text, at: moment)
        return info
    }

    /// Client ids in the cache now (for tests).
    public var cachedCount: Int { cache.withLock { $0.count } }

    private func remember(_ info: ClientInfo?, for key: String, at moment: Date) {
        let entry = Entry(info: info, expires: moment.addingTimeInterval(info == nil ? settings.failureLifetime : settings.lifetime))
        cache.withLock { entries in
            if entries[key] == nil, entries.count >= settings.capacity {
                entries = entries.filter { $0.value.expires > moment }
                // Still full: the entry closest to expiring makes room.
                if entries.count >= settings.capacity, let oldest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                    entries[oldest.key] = nil
                }
            }
            entries[key] = entry
        }
    }
}
