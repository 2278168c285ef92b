import Synchronization

/// A budget per address (or IPv6 /64), shared by every event loop: a token
/// bucket each, refilled at `rate` a second up to `burst`.
///
/// Two of them guard the server: password hashes (registers and logins
/// spend one whether the name exists or not, so random names drain it as
/// fast as real ones) and bytes of posts (a client posting the largest
/// messages it may cannot take the CPU from everyone else).
///
///     let hashes = AddressBudget(perSecond: 2, burst: 10)
///     guard hashes.take(for: key, at: now) else { return .busy }
public final class AddressBudget: Sendable {
    private let buckets: Mutex<TokenBuckets>
    private let exempt: Set<AddressKey>

    public init(perSecond rate: Double, burst: Double, exempt: Set<AddressKey> = [], capacity: Int = 100_000) {
        buckets = Mutex(TokenBuckets(rate: rate, burst: max(1, burst), capacity: capacity))
        self.exempt = exempt
    }

    /// A new rate and burst (a reload).
    public func set(perSecond rate: Double, burst: Double) {
        buckets.withLock {
            $0.rate = max(0, rate)
            $0.burst = max(1, burst)
        }
    }

    /// Takes `amount` for `key`; false when the address is over its budget.
    public func take(_ amount: Double = 1, for key: AddressKey, at now: Moment) -> Bool {
        guard !exempt.contains(key) else { return true }
        return buckets.withLock { $0.take(amount, for: key, at: now) }
    }

    /// Charges `key` for work done whatever its budget (`TokenBuckets.charge`).
    public func charge(_ amount: Double, for key: AddressKey, at now: Moment) {
        guard !exempt.contains(key) else { return }
        buckets.withLock { $0.charge(amount, for: key, at: now) }
    }

    /// What `key` could spend now.
    public func available(for key: AddressKey, at now: Moment) -> Double {
        buckets.withLock { $0.tokens(for: key, at: now) }
    }

    /// Addresses remembered (for tests).
    public var count: Int { buckets.withLock { $0.count } }
}
