import Synchronization

/// Password hashes per address: a token bucket for each address (or IPv6
/// /64), shared by every event loop. Registers and logins take a token
/// whether the name exists or not, so random names drain it as fast as
/// real ones.
final class HashBudget: Sendable {
    private let buckets: Mutex<TokenBuckets>
    private let exempt: Set<AddressKey>

    init(perSecond rate: Double, burst: Double, exempt: Set<AddressKey> = []) {
        buckets = Mutex(TokenBuckets(rate: rate, burst: max(1, burst)))
        self.exempt = exempt
    }

    /// Takes one hash for `key`; false when the address is over its budget.
    func take(for key: AddressKey, at now: Moment) -> Bool {
        guard !exempt.contains(key) else { return true }
        return buckets.withLock { $0.take(for: key, at: now) }
    }
}
