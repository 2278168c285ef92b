import BlogWire
import Foundation
import Synchronization

/// Photo uploads allowed per address (an IPv4 address or an IPv6 /64,
/// `AddressGroup`, as every other budget counts): a token bucket each (`perMinute`,
/// up to `burst` after a quiet spell), and photos decoded at once in all.
/// A photo costs about 0.4 s of a core to decode and re-encode: without
/// both bounds, one address could keep every core busy, or a crowd of
/// addresses could.
///
///     guard budget.take(for: address) else { /* 429 */ }
///     guard let slot = budget.enter() else { /* 503 */ }
///     defer { budget.leave() }
public final class UploadBudget: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        var decoding = 0
    }

    public let perMinute: Double
    public let burst: Double
    /// Photos decoded at once (the others are refused, not queued).
    public let concurrent: Int
    /// Addresses remembered at most; past it the full buckets go first.
    let capacity: Int
    private let state = Mutex(State())
    private let now: @Sendable () -> Date

    public init(perMinute: Double = 10, burst: Double = 10, concurrent: Int = 1, capacity: Int = 100_000,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.perMinute = perMinute
        self.burst = max(1, burst)
        self.concurrent = max(1, concurrent)
        self.capacity = capacity
        self.now = now
    }

    /// Takes one upload for `address`; false when it is over its budget.
    public func take(for address: String) -> Bool {
        let address = AddressGroup.key(address)
        let date = now()
        return state.withLock { state in
            var bucket = state.buckets[address] ?? Bucket(tokens: burst, updated: date)
            let elapsed = max(0, date.timeIntervalSince(bucket.updated))
            bucket.tokens = min(burst, bucket.tokens + elapsed * perMinute / 60)
            bucket.updated = date
            guard bucket.tokens >= 1 else {
                state.buckets[address] = bucket
                return false
            }
            bucket.tokens -= 1
            if state.buckets.count >= capacity, state.buckets[address] == nil { forgetQuiet(&state, at: date) }
            state.buckets[address] = bucket
            return true
        }
    }

    /// Charges `address` for `uploads` more uploads' worth whether it has
    /// them or not (down to a debt of one burst): for bytes already read,
    /// such as a photo over the limit read to its end and dropped. Its
    /// next uploads wait until the bucket refills.
    public func charge(_ uploads: Int, for address: String) {
        let address = AddressGroup.key(address)
        guard uploads > 0 else { return }
        let date = now()
        state.withLock { state in
            var bucket = state.buckets[address] ?? Bucket(tokens: burst, updated: date)
            let elapsed = max(0, date.timeIntervalSince(bucket.updated))
            bucket.tokens = max(-burst, min(burst, bucket.tokens + elapsed * perMinute / 60) - Double(uploads))
            bucket.updated = date
            if state.buckets.count >= capacity, state.buckets[address] == nil { forgetQuiet(&state, at: date) }
            state.buckets[address] = bucket
        }
    }

    /// Uploads `address` may make now (for tests).
    public func available(for address: String) -> Double {
        let address = AddressGroup.key(address)
        let date = now()
        return state.withLock { state in
            guard let bucket = state.buckets[address] else { return burst }
            return min(burst, bucket.tokens + max(0, date.timeIntervalSince(bucket.updated)) * perMinute / 60)
        }
    }

    /// A place to decode one photo; false when all are taken.
    public func enter() -> Bool {
        state.withLock { state in
            guard state.decoding < concurrent else { return false }
            state.decoding += 1
            return true
        }
    }

    public func leave() {
        state.withLock { $0.decoding -= 1 }
    }

    /// Forgets the addresses whose bucket has refilled (they would come
    /// back with a full one anyway), or, if none has, half of them.
    private func forgetQuiet(_ state: inout State, at date: Date) {
        let full = state.buckets.filter { $0.value.tokens + date.timeIntervalSince($0.value.updated) * perMinute / 60 >= burst }
        if full.isEmpty {
            for key in state.buckets.keys.prefix(state.buckets.count / 2) { state.buckets[key] = nil }
        } else {
            for key in full.keys { state.buckets[key] = nil }
        }
    }
}
