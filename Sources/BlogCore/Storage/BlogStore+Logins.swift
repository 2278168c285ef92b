import Foundation
import GRDB
import Synchronization

/// Leases and failed logins for `BlogStore`: a stand-in kept in memory (one
/// process on SQLite shares nothing), with the semantics the protocol
/// states, until the SQLite tables `leases` and `login_failures` replace it.
extension BlogStore {
    public func grantLease(userKey: String, address: String, until expiry: Date) throws(StorageError) {
        loginState.state.withLock { $0.leases[MemoryLoginState.Key(user: userKey, address: address)] = expiry }
    }

    public func leaseExpiry(userKey: String, address: String) throws(StorageError) -> Date? {
        loginState.state.withLock { $0.leases[MemoryLoginState.Key(user: userKey, address: address)] }
    }

    public func deleteLeases(expiredBefore date: Date) throws(StorageError) {
        loginState.state.withLock { $0.leases = $0.leases.filter { $0.value >= date } }
    }

    public func recordLoginFailure(userKey: String, address: String, at date: Date,
                                   policy: LoginThrottle.Policy) throws(StorageError) -> LoginFailures {
        loginState.state.withLock { state in
            let key = MemoryLoginState.Key(user: userKey, address: address)
            var record = state.failures[key] ?? LoginFailures(failures: 0, firstFailure: date, lockedUntil: nil)
            let stale = record.lockedUntil.map { $0 <= date }
                ?? (date.timeIntervalSince(record.firstFailure) > policy.window)
            if stale { record = LoginFailures(failures: 0, firstFailure: date, lockedUntil: nil) }
            record.failures += 1
            if record.failures >= policy.allowedFailures { record.lockedUntil = date.addingTimeInterval(policy.lockout) }
            state.failures[key] = record
            return record
        }
    }

    public func loginFailures(userKey: String, address: String) throws(StorageError) -> LoginFailures? {
        loginState.state.withLock { $0.failures[MemoryLoginState.Key(user: userKey, address: address)] }
    }

    public func clearLoginFailures(userKey: String, address: String) throws(StorageError) {
        loginState.state.withLock { _ = $0.failures.removeValue(forKey: MemoryLoginState.Key(user: userKey, address: address)) }
    }

    public func ping() throws(StorageError) {
        do {
            _ = try pool.read { try Int.fetchOne($0, sql: "SELECT 1") }
        } catch {
            throw .failed("\(error)")
        }
    }
}

/// What `BlogStore`'s stand-in keeps (see above).
final class MemoryLoginState: Sendable {
    struct Key: Hashable {
        var user: String
        var address: String
    }

    struct State {
        var leases: [Key: Date] = [:]
        var failures: [Key: LoginFailures] = [:]
    }

    let state = Mutex(State())
}
