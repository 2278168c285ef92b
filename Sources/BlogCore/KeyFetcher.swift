import BlogLimits
import BlogModel
import BlogSignatures
import Foundation
import Synchronization

/// Fetches and keeps the public keys of signed requests' signers.
///
/// A key id names a document (the key id without its `#fragment`): an
/// actor, or a key document that points to its owner. It is fetched
/// through `OutgoingHTTP` (the bounded fetcher: bytes, time, no private
/// address) with ActivityPub's `Accept`, at most `maxBytes`, and the key
/// kept `cacheSeconds` on the injected clock.
///
/// Work is bounded whatever the requests name: one fetch per key id at a
/// time (requests for a key being fetched wait for that fetch), at most
/// `concurrency` key ids fetched at once and `maxWaiters` requests waiting,
/// and a token bucket of fetches per host and per requesting address, so a
/// flood of made-up key ids makes a fixed number of fetches, then refusals.
///
///     let keys = KeyFetcher(http: FetcherHTTP(fetcher), now: { Date() })
///     let (key, cached) = try await keys.key(for: signature.keyID, from: peerAddress)
public final class KeyFetcher: Sendable {
    public static let accept = #"application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams""#

    public typealias Waiter = CheckedContinuation<Result<(RemoteActorKey, Bool), KeyFetchError>, Never>

    private struct Kept {
        var key: RemoteActorKey
        var fetched: Date
    }

    private struct State {
        var cache: LRUCache<String, Kept>
        var underWay: [String: [Waiter]] = [:]
        var waiting = 0
        var fetches = 0
    }

    public let limits: KeyFetchLimits
    private let http: any OutgoingHTTP
    private let now: @Sendable () -> Date
    private let state: Mutex<State>
    private let hosts: AddressBudget
    private let addresses: AddressBudget

    public init(http: any OutgoingHTTP, limits: KeyFetchLimits = KeyFetchLimits(),
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.http = http
        self.limits = limits
        self.now = now
        state = Mutex(State(cache: LRUCache(capacity: max(1, limits.cacheCapacity))))
        hosts = AddressBudget(perSecond: limits.perHostRate, burst: limits.perHostBurst, capacity: 10_000)
        addresses = AddressBudget(perSecond: limits.perAddressRate, burst: limits.perAddressBurst, capacity: 100_000)
    }

    /// Fetches started so far (for tests and metrics).
    public var fetchCount: Int { state.withLock { $0.fetches } }

    /// Requests waiting now for a fetch under way.
    public var waitingCount: Int { state.withLock { $0.waiting } }

    /// The key `keyID` names, and whether it came from the cache. With
    /// `refresh`, a kept key older than `refetchAfter` is fetched again
    /// (the actor may have rotated it); a younger one is returned as is.
    /// `peerAddress` is charged for a fetch it causes.
    public func key(for keyID: String, from peerAddress: String, refresh: Bool = false) async throws(KeyFetchError) -> (key: RemoteActorKey, cached: Bool) {
        let (url, host) = try ActorKeyDocument.documentURL(keyID)
        let result = await withCheckedContinuation { (waiter: Waiter) in
            switch decide(keyID, host: host, peerAddress: peerAddress, refresh: refresh, waiter: waiter) {
            case .answer(let result):
                waiter.resume(returning: result)
            case .joined:
                break
            case .lead:
                // Its own task: the fetch serves every waiter, so it must not
                // end with the first request that gave up.
                Task(executorPreference: OutgoingExecutor.shared) {
                    await self.fetch(keyID, url: url)
                }
            }
        }
        return try result.get()
    }

    private enum Decision {
        case answer(Result<(RemoteActorKey, Bool), KeyFetchError>)
        case joined
        case lead
    }

    private func decide(_ keyID: String, host: String, peerAddress: String, refresh: Bool, waiter: Waiter) -> Decision {
        state.withLock { state in
            let time = now()
            if let kept = state.cache[keyID] {
                let age = time.timeIntervalSince(kept.fetched)
                if age < limits.cacheSeconds && !(refresh && age >= limits.refetchAfter) {
                    return .answer(.success((kept.key, true)))
                }
            }
            guard state.waiting < limits.maxWaiters else { return .answer(.failure(.busy)) }
            if state.underWay[keyID] != nil {
                state.underWay[keyID]!.append(waiter)
                state.waiting += 1
                return .joined
            }
            guard state.underWay.count < limits.concurrency else { return .answer(.failure(.busy)) }
            let moment = Moment(seconds: time.timeIntervalSince1970)
            let address = AddressKey.of(peerAddress)
            guard addresses.available(for: address, at: moment) >= 1 else {
                return .answer(.failure(.overBudget("the address \(peerAddress)")))
            }
            guard hosts.take(for: Self.hostKey(host), at: moment) else {
                return .answer(.failure(.overBudget("the host \(host)")))
            }
            _ = addresses.take(for: address, at: moment)
            state.underWay[keyID] = [waiter]
            state.waiting += 1
            state.fetches += 1
            return .lead
        }
    }

    /// Fetches the document, keeps the key, and answers every waiter.
    private func fetch(_ keyID: String, url: String) async {
        var result: Result<(RemoteActorKey, Bool), KeyFetchError>
        do throws(OutgoingHTTPError) {
            let answer = try await http.get(url, headers: [("Accept", Self.accept)], maxBytes: limits.maxBytes)
            if (200..<300).contains(answer.status) {
                do throws(KeyFetchError) {
                    result = .success((try ActorKeyDocument.key(in: answer.body, keyID: keyID), false))
                } catch {
                    result = .failure(error)
                }
            } else {
                result = .failure(.status(answer.status))
            }
        } catch {
            result = .failure(.fetch(error))
        }
        let waiters = state.withLock { state -> [Waiter] in
            if case .success((let key, _)) = result { state.cache[keyID] = Kept(key: key, fetched: now()) }
            let waiters = state.underWay.removeValue(forKey: keyID) ?? []
            state.waiting -= waiters.count
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    /// A host name as a budget key: `AddressBudget` keeps a bounded map
    /// of token buckets keyed by `AddressKey`, and a 64-bit hash of the
    /// name serves as one (the hosts' budget is its own, so no real
    /// address shares it). Swift's `Hasher` is seeded at random per
    /// process, so no one can pick a name that shares another host's bucket.
    static func hostKey(_ host: String) -> AddressKey {
        var hasher = Hasher()
        hasher.combine(host.lowercased())
        let bits = UInt64(bitPattern: Int64(hasher.finalize()))
        return AddressKey(ipBytes: (0..<8).map { UInt8(truncatingIfNeeded: bits >> ($0 * 8)) } + Array(repeating: 0, count: 8))
    }
}
