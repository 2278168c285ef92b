import BlogModel
import Foundation
import PostgresNIO

/// Login leases and failed logins, shared by every instance, so that a
/// login on one lets the same address post through another, and a
/// guesser cannot multiply their tries by the number of instances.
/// Times are epoch seconds (`double precision`), as in SQLite.
extension PostgresStore {
    public func grantLease(userKey: String, address: String, until expiry: Date) throws(StorageError) {
        try execute("""
            INSERT INTO leases (user_key, address, expires_at) VALUES (\(userKey), \(address), \(expiry.timeIntervalSince1970))
            ON CONFLICT (user_key, address) DO UPDATE SET expires_at = EXCLUDED.expires_at
            """)
    }

    public func leaseExpiry(userKey: String, address: String) throws(StorageError) -> Date? {
        try rows("SELECT expires_at FROM leases WHERE user_key = \(userKey) AND address = \(address)") { row in
            Date(timeIntervalSince1970: try row.decode(Double.self))
        }.first
    }

    public func siteValue(_ key: String, storingIfAbsent value: String) throws(StorageError) -> String {
        // The insert is not seen by the statement's own SELECT: one of the
        // two gives the row, unless a racing caller's insert committed
        // after this statement's snapshot; a statement of its own sees it.
        let found = try rows("""
            WITH added AS (
                INSERT INTO site_values (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO NOTHING RETURNING value
            )
            SELECT value FROM added UNION ALL SELECT value FROM site_values WHERE key = \(key)
            """) { row in try row.decode(String.self) }.first
        if let found { return found }
        return try rows("SELECT value FROM site_values WHERE key = \(key)") { row in try row.decode(String.self) }.first ?? value
    }

    public func deleteLeases(expiredBefore date: Date) throws(StorageError) {
        try execute("DELETE FROM leases WHERE expires_at < \(date.timeIntervalSince1970)")
    }

    @discardableResult
    public func deleteStaleLoginFailures(at date: Date, policy: LoginPolicy) throws(StorageError) -> Int {
        let now = date.timeIntervalSince1970
        return try rows("""
            WITH gone AS (
                DELETE FROM login_failures
                WHERE (locked_until IS NOT NULL AND locked_until <= \(now))
                   OR (locked_until IS NULL AND \(now) - first_failure > \(policy.window))
                RETURNING 1)
            SELECT count(*)::bigint FROM gone
            """) { row in Int(try row.decode(Int64.self)) }.first ?? 0
    }

    /// Counts one failed login in one statement, so that failures counted
    /// at once by several instances are all counted: a stale record (its
    /// lockout over, or its window passed without a lockout) starts again
    /// at one failure; reaching `allowedFailures` locks for `lockout`.
    public func recordLoginFailure(userKey: String, address: String, at date: Date,
                                   policy: LoginPolicy) throws(StorageError) -> LoginFailures {
        var binds = PostgresBindings()
        binds.append(userKey)                                   // $1
        binds.append(address)                                   // $2
        binds.append(date.timeIntervalSince1970)                // $3
        binds.append(policy.window)                             // $4
        binds.append(Int64(clamping: policy.allowedFailures))   // $5
        binds.append(policy.lockout)                            // $6
        let sql = LoginFailureSQL.record(parameter: { "$\($0)" })
        let rows = try rows(PostgresQuery(unsafeSQL: sql, binds: binds)) { row in
            let (failures, first, until) = try row.decode((Int, Double, Double?).self)
            return LoginFailures(failures: failures, firstFailure: Date(timeIntervalSince1970: first),
                                 lockedUntil: until.map(Date.init(timeIntervalSince1970:)))
        }
        guard let record = rows.first else { throw .failed("the login failure returned no row") }
        return record
    }

    public func loginFailures(userKey: String, address: String) throws(StorageError) -> LoginFailures? {
        try rows("""
            SELECT failures, first_failure, locked_until FROM login_failures
            WHERE user_key = \(userKey) AND address = \(address)
            """) { row in
            let (failures, first, until) = try row.decode((Int, Double, Double?).self)
            return LoginFailures(failures: failures, firstFailure: Date(timeIntervalSince1970: first),
                                 lockedUntil: until.map(Date.init(timeIntervalSince1970:)))
        }.first
    }

    public func clearLoginFailures(userKey: String, address: String) throws(StorageError) {
        try execute("DELETE FROM login_failures WHERE user_key = \(userKey) AND address = \(address)")
    }

    /// One round trip: `SELECT 1` on a pooled connection.
    /// Within a second at most: a health check must answer quickly.
    public func ping() throws(StorageError) {
        try withConnection(within: min(1, deadline)) { [logger] connection in
            _ = try await connection.query("SELECT 1", logger: logger).collect()
        }
    }
}
