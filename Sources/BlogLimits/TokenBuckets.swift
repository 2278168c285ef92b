/// A token bucket per address: each address may spend `rate` tokens a
/// second, and up to `burst` at once after a quiet spell (nginx's
/// limit_req with a burst, per address).
///
/// Memory is bounded: past `capacity` addresses, the ones whose bucket is
/// full again (they have been quiet) are forgotten, and if that is not
/// enough, the longest quiet. A flood from many addresses therefore costs
/// at most `capacity` entries, and an address that is forgotten comes back
/// with a full bucket, which is what it would have had anyway.
///
///     var buckets = TokenBuckets(rate: 2, burst: 10)
///     if buckets.take(for: key, at: now) { /* hash the password */ } else { /* err:BUSY */ }
public struct TokenBuckets: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Moment
    }

    /// Changed by a reload: buckets keep their tokens, capped by the new burst.
    public var rate: Double
    public var burst: Double
    public let capacity: Int
    private var buckets: [AddressKey: Bucket] = [:]

    public init(rate: Double, burst: Double, capacity: Int = 100_000) {
        precondition(rate >= 0 && burst >= 1 && capacity >= 1)
        self.rate = rate
        self.burst = burst
        self.capacity = capacity
    }

    /// Addresses remembered (for tests).
    public var count: Int { buckets.count }

    /// Takes `amount` tokens for `key`: false when its bucket holds fewer.
    public mutating func take(_ amount: Double = 1, for key: AddressKey, at now: Moment) -> Bool {
        var bucket = refilled(buckets[key], at: now)
        guard bucket.tokens >= amount else {
            buckets[key] = bucket
            return false
        }
        bucket.tokens -= amount
        if buckets[key] == nil && buckets.count >= capacity { evict(at: now) }
        buckets[key] = bucket
        return true
    }

    /// Tokens `key` could spend now.
    public func tokens(for key: AddressKey, at now: Moment) -> Double {
        refilled(buckets[key], at: now).tokens
    }

    /// Takes `amount` from `key` whether it has it or not, down to a debt
    /// of one burst: for work already done, such as a body read to its
    /// end and dropped. The address waits until its bucket refills.
    public mutating func charge(_ amount: Double, for key: AddressKey, at now: Moment) {
        guard amount > 0 else { return }
        var bucket = refilled(buckets[key], at: now)
        bucket.tokens = max(-burst, bucket.tokens - amount)
        if buckets[key] == nil && buckets.count >= capacity { evict(at: now) }
        buckets[key] = bucket
    }

    private func refilled(_ bucket: Bucket?, at now: Moment) -> Bucket {
        guard let bucket else { return Bucket(tokens: burst, updated: now) }
        let earned = now.seconds(since: bucket.updated) * rate
        return Bucket(tokens: min(burst, bucket.tokens + earned), updated: max(now, bucket.updated))
    }

    private mutating func evict(at now: Moment) {
        buckets = buckets.filter { refilled($0.value, at: now).tokens < burst }
        guard buckets.count >= capacity else { return }
        let quietest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(buckets.count - capacity / 2)
        for (key, _) in quietest { buckets[key] = nil }
    }
}
