import Foundation
import Synchronization
import BlogWire

/// Who may post: a user who registered or logged in from an address holds a
/// lease for that address until it expires.
///
/// With a database, leases are kept there too: a login through one instance
/// lets the same address post through another, and a lease survives a
/// restart. Memory holds the leases seen, so a post asks the database only
/// for a lease this process has not seen yet.
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
    private let storage: (any BlogStorage)?

    public init(duration: TimeInterval, storage: (any BlogStorage)? = nil, sweepThreshold: Int = 10_000,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.duration = duration
        self.storage = storage
        self.sweepThreshold = sweepThreshold
        self.now = now
    }

    /// Grants or renews the lease of `user` at `address`. Throws when the
    /// database could not keep it; this process honours it all the same.
    public func grant(_ user: Username, from address: String) throws(StorageError) {
        let current = now()
        let expiry = current.addingTimeInterval(duration)
        let swept = leases.withLock { leases in
            var swept = false
            if leases.count >= sweepThreshold {
                leases = leases.filter { $0.value > current }
                swept = true
            }
            leases[Key(user: user.key, address: address)] = expiry
            return swept
        }
        guard let storage else { return }
        if swept { try storage.deleteLeases(expiredBefore: current) }
        try storage.grantLease(userKey: user.key, address: address, until: expiry)
    }

    /// Whether `user` holds an unexpired lease at `address`: granted here,
    /// or by another process on the same database.
    public func isHeld(by user: Username, from address: String) throws(StorageError) -> Bool {
        let current = now()
        let key = Key(user: user.key, address: address)
        if let expiry = leases.withLock({ $0[key] }), expiry > current { return true }
        guard let storage, let expiry = try storage.leaseExpiry(userKey: user.key, address: address),
              expiry > current else { return false }
        leases.withLock { $0[key] = expiry }
        return true
    }

    /// How many leases are stored, expired ones included until swept.
    public var count: Int { leases.withLock { $0.count } }
}
