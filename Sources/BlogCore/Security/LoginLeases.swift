import Foundation
import Synchronization
import BlogWire

/// Who may post: a user who registered or logged in from an address holds a
/// lease for that address until it expires.
///
/// Leases live in memory only. After a restart a client logs in again before
/// posting, as the original client always does.
public final class LoginLeases: Sendable {
    private struct Key: Hashable {
        var user: String
        var address: String
    }

    public let duration: TimeInterval
    private let now: @Sendable () -> Date
    private let leases = Mutex<[Key: Date]>([:])
    /// Past this many leases, expired ones are swept on the next grant.
    private let sweepThreshold: Int

    public init(duration: TimeInterval, sweepThreshold: Int = 10_000,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.duration = duration
        self.sweepThreshold = sweepThreshold
        self.now = now
    }

    /// Grants or renews the lease of `user` at `address`.
    public func grant(_ user: Username, from address: String) {
        let current = now()
        leases.withLock { leases in
            if leases.count >= sweepThreshold {
                leases = leases.filter { $0.value > current }
            }
            leases[Key(user: user.key, address: address)] = current.addingTimeInterval(duration)
        }
    }

    /// Whether `user` holds an unexpired lease at `address`.
    public func isHeld(by user: Username, from address: String) -> Bool {
        let current = now()
        return leases.withLock { leases in
            guard let expiry = leases[Key(user: user.key, address: address)] else { return false }
            return expiry > current
        }
    }

    /// How many leases are stored, expired ones included until swept.
    public var count: Int { leases.withLock { $0.count } }
}
