import Foundation
import Synchronization
import BlogWire
import BlogModel

/// Slows password guessing: after `allowedFailures` failed logins for one
/// user from one address within `window`, logins for that user from that
/// address are refused for `lockout` without checking the password.
///
/// Keyed by user *and* address, so a guesser elsewhere never locks the real
/// user out. With a database, the failures are counted there, so that every
/// instance on it sees them; memory keeps the checks under way here. Memory is bounded: past `capacity` entries the stale ones are
/// swept, and if that is not enough the oldest are dropped.
public final class LoginThrottle: Sendable {
    /// The rule itself lives in the model, where both backends apply it.
    public typealias Policy = LoginPolicy

    private struct Key: Hashable {
        var user: String
        var address: String
    }

    fileprivate struct Record {
        var failures: Int
        var firstFailure: Date
        var lockedUntil: Date?
        /// Checks begun and not yet finished: they count against the limit
        /// too, or a burst of parallel guesses would all be checked before
        /// the first failure is recorded.
        var inFlight = 0
        /// The database holds a record of these failures (stale or not).
        var stored = false
    }

    public let policy: Policy
    private let capacity: Int
    private let now: @Sendable () -> Date
    private let records = Mutex<[Key: Record]>([:])
    private let storage: (any LoginStateStorage)?

    public init(policy: Policy, storage: (any LoginStateStorage)? = nil, capacity: Int = 100_000,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.policy = policy
        self.storage = storage
        self.capacity = capacity
        self.now = now
    }

    /// Whether `user` at `address` is locked out right now.
    public func isLocked(_ user: Username, from address: String) -> Bool {
        let current = now()
        return records.withLock { records in
            guard let until = records[Key(user: user.key, address: address)]?.lockedUntil else { return false }
            return until > current
        }
    }

    /// Reserves one password check for `user` at `address`: false when
    /// locked out, or when the checks already under way would reach the
    /// limit. Every `true` must be followed by `finish`.
    public func begin(_ user: Username, from address: String) -> Bool {
        guard policy.allowedFailures != .max else { return true }
        let current = now()
        let key = Key(user: user.key, address: address)
        // A database error counts as no failures: the login itself then
        // fails on the same database, or succeeds on a sound password.
        let shared = try? storage?.loginFailures(userKey: user.key, address: address)
        return records.withLock { records in
            var record = records[key] ?? Record(failures: 0, firstFailure: current)
            if storage != nil { record.adopt(shared, at: current) }
            record = fresh(record, at: current)
            if let until = record.lockedUntil, until > current { return false }
            guard record.failures + record.inFlight < policy.allowedFailures else { return false }
            record.inFlight += 1
            if records[key] == nil && records.count >= capacity { sweep(&records, at: current) }
            records[key] = record
            return true
        }
    }

    /// Ends a check `begin` allowed: a failure counts toward the lockout, a
    /// success forgets the failures of that user at that address.
    public func finish(_ user: Username, from address: String, succeeded: Bool) {
        guard policy.allowedFailures != .max else { return }
        let current = now()
        let key = Key(user: user.key, address: address)
        // What the database holds after counting this check (its inner nil:
        // no failures left); nil when there is no database or it failed,
        // and the check is counted here alone.
        var shared: LoginFailures?? = nil
        // begin() read the stored failures: with none, a success has
        // nothing to clear, and the login costs no write.
        let hadFailures = records.withLock { $0[key].map { $0.failures > 0 || $0.stored } ?? false }
        if let storage, !succeeded || hadFailures {
            do {
                if succeeded {
                    try storage.clearLoginFailures(userKey: user.key, address: address)
                    shared = .some(nil)
                } else {
                    shared = .some(try storage.recordLoginFailure(userKey: user.key, address: address,
                                                                  at: current, policy: policy))
                }
            } catch {}
        }
        records.withLock { records in
            var record = fresh(records[key], at: current)
            record.inFlight = max(0, record.inFlight - 1)
            if let shared {
                // The database counted it, with every other instance's.
                record.adopt(shared, at: current)
            } else if succeeded {
                record.failures = 0
                record.lockedUntil = nil
            } else {
                record.failures += 1
                if record.failures >= policy.allowedFailures {
                    record.lockedUntil = current.addingTimeInterval(policy.lockout)
                }
            }
            records[key] = record.failures == 0 && record.inFlight == 0 ? nil : record
        }
    }

    /// Counts a failed login outside `begin`/`finish`.
    public func recordFailure(_ user: Username, from address: String) {
        guard begin(user, from: address) else { return }
        finish(user, from: address, succeeded: false)
    }

    /// A successful login forgets the failures of that user at that address.
    public func recordSuccess(_ user: Username, from address: String) {
        try? storage?.clearLoginFailures(userKey: user.key, address: address)
        records.withLock { _ = $0.removeValue(forKey: Key(user: user.key, address: address)) }
    }

    /// The record, restarted when its window or lockout is over.
    private func fresh(_ record: Record?, at current: Date) -> Record {
        guard var record else { return Record(failures: 0, firstFailure: current) }
        let lockoutOver = record.lockedUntil.map { $0 <= current } ?? false
        if lockoutOver || (record.lockedUntil == nil && current.timeIntervalSince(record.firstFailure) > policy.window) {
            let (inFlight, stored) = (record.inFlight, record.stored)
            record = Record(failures: 0, firstFailure: current)
            record.inFlight = inFlight
            record.stored = stored
        }
        if record.failures == 0 && record.inFlight == 0 { record.firstFailure = current }
        return record
    }

    /// Entries held (for tests).
    public var count: Int { records.withLock { $0.count } }

    private func sweep(_ records: inout [Key: Record], at current: Date) {
        let horizon = max(policy.window, policy.lockout)
        records = records.filter { _, record in
            if record.inFlight > 0 { return true }
            if let until = record.lockedUntil { return until > current }
            return current.timeIntervalSince(record.firstFailure) <= horizon
        }
        if records.count >= capacity {
            let oldest = records.sorted { $0.value.firstFailure < $1.value.firstFailure }.prefix(records.count - capacity / 2)
            for (key, _) in oldest { records[key] = nil }
        }
    }
}

extension LoginThrottle.Record {
    /// Takes the failures counted in the database (nil: none there),
    /// keeping the checks under way in this process.
    mutating func adopt(_ shared: LoginFailures?, at current: Date) {
        failures = shared?.failures ?? 0
        firstFailure = shared?.firstFailure ?? current
        lockedUntil = shared?.lockedUntil
        stored = shared != nil
    }
}
