import BlogLimits
import Foundation

/// Changes of blog settings allowed per address (`AddressKey`, as every
/// budget counts): a token bucket each, `perMinute` up to `burst`. A
/// change rewrites every page of the blog, whose cost grows with its
/// posts (a second per 10,000): without a bound, one signed-in address
/// could keep a core rewriting pages. Rewrites of one blog never run at
/// once (its page lock), so many addresses of one user add no more.
///
///     guard budget.take(for: request.peerAddress) else { /* 429 */ }
public final class BlogSettingsBudget: Sendable {
    private let buckets: AddressBudget
    private let now: @Sendable () -> Date

    public init(perMinute: Double = 6, burst: Double = 3, capacity: Int = 100_000,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
        buckets = AddressBudget(perSecond: perMinute / 60, burst: max(1, burst), capacity: capacity)
    }

    /// Takes one change for `address`; false when it is over its budget.
    public func take(for address: String) -> Bool {
        buckets.take(for: AddressKey.of(address), at: Moment(seconds: now().timeIntervalSince1970))
    }
}
