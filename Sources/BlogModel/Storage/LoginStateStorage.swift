import Foundation

/// Login state that instances on one database share (`LoginLeases`,
/// `LoginThrottle`): kept in the database, so it also survives a restart.
public protocol LoginStateStorage: Sendable {
    /// Grants or renews the lease of `userKey` (the lower-cased user name)
    /// at `address` until `expiry`; durable before it returns.
    func grantLease(userKey: String, address: String, until expiry: Date) throws(StorageError)

    /// When the lease of `userKey` at `address` expires; nil when there is none.
    func leaseExpiry(userKey: String, address: String) throws(StorageError) -> Date?

    /// Forgets leases that expired before `date`.
    func deleteLeases(expiredBefore date: Date) throws(StorageError)

    /// Counts one failed login in one statement, so that instances counting
    /// at once lose none: a record that is stale at `date` (its lockout
    /// over, or its window past) starts again at one failure. Reaching
    /// `policy.allowedFailures` locks logins out until `date + policy.lockout`.
    func recordLoginFailure(userKey: String, address: String, at date: Date,
                            policy: LoginPolicy) throws(StorageError) -> LoginFailures

    /// The stored failed-login record, nil when there is none.
    func loginFailures(userKey: String, address: String) throws(StorageError) -> LoginFailures?

    /// Forgets every failed-login record that is stale at `date` (its
    /// lockout over, or its window past without one): such a record counts
    /// for nothing any more, and a flood of random names would otherwise
    /// leave a row each for good. Returns how many went.
    @discardableResult
    func deleteStaleLoginFailures(at date: Date, policy: LoginPolicy) throws(StorageError) -> Int

    /// Forgets the failed logins of `userKey` at `address`.
    func clearLoginFailures(userKey: String, address: String) throws(StorageError)
}
