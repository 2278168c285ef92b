import BlogLimits
import Foundation
import Synchronization

/// Photo uploads allowed per address (an IPv4 address or an IPv6 /64,
/// `AddressKey`, as every budget counts): a token bucket each
/// (`TokenBuckets`, `perMinute` up to `burst` after a quiet spell), and
/// photos decoded at once in all. A photo costs about 0.4 s of a core to
/// decode and re-encode: without both bounds, one address could keep
/// every core busy, or a crowd of addresses could.
///
///     guard budget.take(for: address) else { /* 429 */ }
///     guard let slot = budget.enter() else { /* 503 */ }
///     defer { budget.leave() }
public final class UploadBudget: Sendable {
    public let perMinute: Double
    public let burst: Double
    /// Photos decoded at once (the others are refused, not queued).
    public let concurrent: Int
    private let buckets: AddressBudget
    private let decoding = Mutex(0)
    private let now: @Sendable () -> Date

    public init(perMinute: Double = 10, burst: Double = 10, concurrent: Int = 1, capacity: Int = 100_000,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.perMinute = perMinute
        self.burst = max(1, burst)
        self.concurrent = max(1, concurrent)
        self.now = now
        buckets = AddressBudget(perSecond: perMinute / 60, burst: self.burst, capacity: capacity)
    }

    /// Takes one upload for `address`; false when it is over its budget.
    public func take(for address: String) -> Bool {
        buckets.take(for: AddressKey.of(address), at: moment)
    }

    /// Charges `address` for `uploads` more uploads' worth whether it has
    /// them or not (down to a debt of one burst): for bytes already read,
    /// such as a photo over the limit read to its end and dropped. Its
    /// next uploads wait until the bucket refills.
    public func charge(_ uploads: Int, for address: String) {
        buckets.charge(Double(uploads), for: AddressKey.of(address), at: moment)
    }

    /// Uploads `address` may make now (for tests).
    public func available(for address: String) -> Double {
        buckets.available(for: AddressKey.of(address), at: moment)
    }

    /// A place to decode one photo; false when all are taken.
    public func enter() -> Bool {
        decoding.withLock { count in
            guard count < concurrent else { return false }
            count += 1
            return true
        }
    }

    public func leave() {
        decoding.withLock { $0 -= 1 }
    }

    private var moment: Moment { Moment(seconds: now().timeIntervalSince1970) }
}
