import BlogLimits
import Foundation
import HTTPTypes

/// Pages read from the database as they are asked for (tag pages, search):
/// a budget per address (`AddressBudget`: an IPv4 address or an IPv6 /64),
/// so that one client asking as fast as it can gets `429` and costs the
/// database no more than its share.
///
///     let budget = ReadingBudget(perSecond: 5, burst: 20)
///     guard budget.take(for: request.peerAddress) else { return budget.refusal }
public final class ReadingBudget: Sendable {
    public let perSecond: Double
    public let burst: Double
    private let buckets: AddressBudget
    private let now: @Sendable () -> Date

    public init(perSecond: Double, burst: Double, capacity: Int = 100_000,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.perSecond = max(0, perSecond)
        self.burst = max(1, burst)
        self.now = now
        buckets = AddressBudget(perSecond: self.perSecond, burst: self.burst, capacity: capacity)
    }

    /// Takes `cost` for `address`; false when it is over its budget.
    public func take(_ cost: Double = 1, for address: String) -> Bool {
        buckets.take(cost, for: AddressKey.of(address), at: Moment(seconds: now().timeIntervalSince1970))
    }

    /// The answer over budget: `429`, and when to come back.
    public var refusal: WebResponseParts {
        let wait = perSecond > 0 ? max(1, Int((1 / perSecond).rounded(.up))) : 60
        return WebResponseParts(status: .tooManyRequests, retryAfter: wait,
                                text: "Too many requests from your address: wait a moment and try again.\n")
    }
}

/// A refusal's status, wait and words, for the application to send in
/// its own form.
public struct WebResponseParts: Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var retryAfter: Int
    public var text: String
}
