import Foundation
import Synchronization
import BlogWire
import BlogModel

/// Who may post: a user who registered or logged in from an address holds a
/// lease for that address until it expires.
///
/// With a database, leases are kept there too: a login through one instance
/// lets the same address post through another, and a lease survives a
/// restart. Memory holds the leases seen, so a post asks the database only
/// for a lease this process has not seen yet, or has not checked there
/// for `recheck` seconds: a lease ended elsewhere (a new password set by
/// `blogd passwd`, or through another instance) stops within that time.
/// A lease the database could not keep is honoured here all the same.
///
/// Memory is bounded without sweeps: leases are queued in the order they
/// were granted, which is the order they expire in (one duration for all),
/// so each grant forgets the expired ones at the front, O(1) amortized
/// (a sweep of the whole map past 10,000 leases cost every grant that
/// much). Past `capacity` live leases, the oldest are forgotten here; the
/// database still has them.
public final class LoginLeases: Sendable {
    private struct Key: Hashable {
        var user: String
        var address: String
    }

    private struct Table {
        var expiries: [Key: Date] = [:]
        /// When the database last confirmed each lease (or this process
        /// granted it); `distantFuture` for one the database could not keep.
        var checked: [Key: Date] = [:]
        /// Grants in order, expired or renewed ones included until they
        /// reach the front.
        var queue: [(key: Key, expiry: Date)] = []
        var head = 0

        mutating func set(_ key: Key, until expiry: Date, now: Date, capacity: Int) {
            expiries[key] = expiry
            checked[key] = now
            queue.append((key, expiry))
            while head < queue.count {
                let (first, until) = queue[head]
                let current = expiries[first]
                // A renewed lease left this entry behind; an expired one goes.
                guard current != until || until <= now || expiries.count > capacity else { break }
                if current == until {
                    expiries[first] = nil
                    checked[first] = nil
                }
                head += 1
            }
            if head > 1024 && head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
        }
    }

    public let duration: TimeInterval
    /// Live leases remembered here at most.
    public let capacity: Int
    private let now: @Sendable () -> Date
    private let leases = Mutex(Table())
    private let storage: (any LoginStateStorage)?

    public init(duration: TimeInterval, storage: (any LoginStateStorage)? = nil, capacity: Int = 100_000,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.duration = duration
        self.storage = storage
        self.capacity = max(1, capacity)
        self.now = now
    }

    /// Grants or renews the lease of `user` at `address`. Throws when the
    /// database could not keep it; this process honours it all the same.
    public func grant(_ user: Username, from address: String) throws(StorageError) {
        let current = now()
        let expiry = current.addingTimeInterval(duration)
        let key = Key(user: user.key, address: address)
        leases.withLock { $0.set(key, until: expiry, now: current, capacity: capacity) }
        do {
            try storage?.grantLease(userKey: user.key, address: address, until: expiry)
        } catch {
            // Never checked again: the database would not know it.
            leases.withLock { if $0.expiries[key] == expiry { $0.checked[key] = .distantFuture } }
            throw error
        }
    }

    /// Seconds a lease held in memory is trusted before the database is
    /// asked again.
    public static let recheck: TimeInterval = 5

    /// Whether `user` holds an unexpired lease at `address`: granted here,
    /// or by another process on the same database.
    public func isHeld(by user: Username, from address: String) throws(StorageError) -> Bool {
        let current = now()
        let key = Key(user: user.key, address: address)
        let known = leases.withLock { table in table.expiries[key].map { ($0, table.checked[key] ?? .distantPast) } }
        if let (expiry, checked) = known, expiry > current,
           storage == nil || current.timeIntervalSince(checked) < Self.recheck { return true }
        guard let storage else { return false }
        guard let expiry = try storage.leaseExpiry(userKey: user.key, address: address), expiry > current else {
            // Ended elsewhere (or expired): forgotten here too.
            if known != nil {
                leases.withLock { table in
                    table.expiries[key] = nil
                    table.checked[key] = nil
                }
            }
            return false
        }
        leases.withLock { table in
            // Checked and the same: no second place in the grant queue.
            if table.expiries[key] == expiry {
                table.checked[key] = current
            } else {
                table.set(key, until: expiry, now: current, capacity: capacity)
            }
        }
        return true
    }

    /// Forgets every lease of `user` held in this process (a new password
    /// ends them; the database's go in the same commit as the password).
    /// Their places in the grant queue are passed over as stale.
    public func forget(_ user: Username) {
        leases.withLock { table in
            for key in table.expiries.keys where key.user == user.key {
                table.expiries[key] = nil
                table.checked[key] = nil
            }
        }
    }

    /// How many leases are remembered, expired ones included until a grant
    /// passes them.
    public var count: Int { leases.withLock { $0.expiries.count } }
}
