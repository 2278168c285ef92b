import Foundation
import BlogModel
import GRDB

/// Leases and failed-login counts in SQLite: a lease survives a restart.
/// Times are seconds since 1970, as in the PostgreSQL schema.
extension SQLiteStore {
    public func grantLease(userKey: String, address: String, until expiry: Date) throws(StorageError) {
        try writeState { db in
            try db.execute(sql: """
                INSERT INTO leases (user_key, address, expires_at) VALUES (?, ?, ?)
                ON CONFLICT (user_key, address) DO UPDATE SET expires_at = excluded.expires_at
                """, arguments: [userKey, address, expiry.timeIntervalSince1970])
        }
    }

    public func leaseExpiry(userKey: String, address: String) throws(StorageError) -> Date? {
        try read { db in
            try Double.fetchOne(db, sql: "SELECT expires_at FROM leases WHERE user_key = ? AND address = ?",
                                arguments: [userKey, address]).map(Date.init(timeIntervalSince1970:))
        }
    }

    public func siteValue(_ key: String, storingIfAbsent value: String) throws(StorageError) -> String {
        try writeState { db in
            try db.execute(sql: "INSERT INTO site_values (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                           arguments: [key, value])
            return try String.fetchOne(db, sql: "SELECT value FROM site_values WHERE key = ?", arguments: [key]) ?? value
        }
    }

    public func deleteLeases(expiredBefore date: Date) throws(StorageError) {
        try writeState { db in
            try db.execute(sql: "DELETE FROM leases WHERE expires_at < ?", arguments: [date.timeIntervalSince1970])
        }
    }

    @discardableResult
    public func deleteStaleLoginFailures(at date: Date, policy: LoginPolicy) throws(StorageError) -> Int {
        try writeState { db in
            try db.execute(sql: """
                DELETE FROM login_failures
                WHERE (locked_until IS NOT NULL AND locked_until <= ?1)
                   OR (locked_until IS NULL AND ?1 - first_failure > ?2)
                """, arguments: [date.timeIntervalSince1970, policy.window])
            return db.changesCount
        }
    }

    public func recordLoginFailure(userKey: String, address: String, at date: Date,
                                   policy: LoginPolicy) throws(StorageError) -> LoginFailures {
        try writeState { db in
            let row = try Row.fetchOne(db, sql: LoginFailureSQL.record(parameter: { "?\($0)" }), arguments: [
                userKey, address, date.timeIntervalSince1970, policy.window,
                policy.allowedFailures == .max ? Int64.max : Int64(policy.allowedFailures), policy.lockout])
            guard let row else { throw StorageError.failed("no row from the failed-login upsert") }
            return LoginFailures(row)
        }
    }

    public func loginFailures(userKey: String, address: String) throws(StorageError) -> LoginFailures? {
        try read { db in
            try Row.fetchOne(db, sql: """
                SELECT failures, first_failure, locked_until FROM login_failures WHERE user_key = ? AND address = ?
                """, arguments: [userKey, address]).map(LoginFailures.init)
        }
    }

    public func clearLoginFailures(userKey: String, address: String) throws(StorageError) {
        try writeState { db in
            try db.execute(sql: "DELETE FROM login_failures WHERE user_key = ? AND address = ?",
                           arguments: [userKey, address])
        }
    }

    public func ping() throws(StorageError) {
        _ = try read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    /// A write through group commit: durable when it returns.
    private func writeState<T: Sendable>(_ work: @escaping (Database) throws -> T) throws(StorageError) -> T {
        try gate.pass { () throws(StorageError) in try write(work) }
    }
}

extension LoginFailures {
    init(_ row: Row) {
        self.init(failures: row[0], firstFailure: Date(timeIntervalSince1970: row[1]),
                  lockedUntil: (row[2] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}
