import BlogLimits
import Foundation

/// What one address (an IPv4 address or an IPv6 /64, `AddressKey`) may
/// spend on IndieAuth: authorization attempts (the page, the approval,
/// the code redeemed at the authorization endpoint) and token requests
/// (token, revocation, introspection), each a token bucket of
/// `perMinute` up to `burst`. A refused code or verifier costs
/// `failureCost` requests: codes are 256 bits, past guessing, but a
/// client that sends bad ones is no app, and should wait.
///
///     guard budget.takeTokenRequest(for: request.peerAddress) else { /* 429 */ }
public final class IndieAuthBudget: Sendable {
    /// Authorization attempts an address may make a minute, refilled...
    public let perMinute: Double
    /// ...and at once after a quiet spell.
    public let burst: Double
    /// Token requests a minute, and at once.
    public let tokenPerMinute: Double
    public let tokenBurst: Double
    public let failureCost: Double
    private let authorizations: AddressBudget
    private let tokenRequests: AddressBudget
    private let now: @Sendable () -> Date

    /// One rate and burst for both budgets.
    public convenience init(perMinute: Double = 30, burst: Double = 30, failureCost: Double = 5, capacity: Int = 100_000,
                            now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(perMinute: perMinute, burst: burst, tokenPerMinute: perMinute, tokenBurst: burst,
                  failureCost: failureCost, capacity: capacity, now: now)
    }

    /// Authorization attempts (`perMinute`, `burst`) and token requests
    /// (`tokenPerMinute`, `tokenBurst`) each their own.
    public init(perMinute: Double, burst: Double, tokenPerMinute: Double, tokenBurst: Double,
                failureCost: Double = 5, capacity: Int = 100_000, now: @escaping @Sendable () -> Date = { Date() }) {
        self.perMinute = max(0, perMinute)
        self.burst = max(1, burst)
        self.tokenPerMinute = max(0, tokenPerMinute)
        self.tokenBurst = max(1, tokenBurst)
        self.failureCost = failureCost
        self.now = now
        authorizations = AddressBudget(perSecond: self.perMinute / 60, burst: self.burst, capacity: capacity)
        tokenRequests = AddressBudget(perSecond: self.tokenPerMinute / 60, burst: self.tokenBurst, capacity: capacity)
    }

    /// Takes one authorization attempt; false when the address is over.
    public func takeAuthorization(for address: String) -> Bool {
        authorizations.take(for: AddressKey.of(address), at: moment)
    }

    /// Takes one token request; false when the address is over.
    public func takeTokenRequest(for address: String) -> Bool {
        tokenRequests.take(for: AddressKey.of(address), at: moment)
    }

    /// Charges a refused code or verifier, whatever is left.
    public func chargeFailure(for address: String, authorization: Bool = false) {
        (authorization ? authorizations : tokenRequests).charge(failureCost, for: AddressKey.of(address), at: moment)
    }

    /// Token requests `address` may make now (for tests).
    public func tokenRequestsAvailable(for address: String) -> Double {
        tokenRequests.available(for: AddressKey.of(address), at: moment)
    }

    /// Seconds until one more authorization attempt is allowed, rounded
    /// up: the `Retry-After` of a refusal.
    var retryAfter: Int { Self.wait(perMinute) }

    /// The same for a token request.
    var tokenRetryAfter: Int { Self.wait(tokenPerMinute) }

    private static func wait(_ perMinute: Double) -> Int { max(1, Int((60 / max(perMinute, 0.001)).rounded(.up))) }

    private var moment: Moment { Moment(seconds: now().timeIntervalSince1970) }
}
