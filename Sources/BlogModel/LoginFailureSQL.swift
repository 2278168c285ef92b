/// The failed-login upsert, the one rule of `LoginPolicy` in the database,
/// one text for both backends: `parameter(n)` spells the n-th bound value
/// (`?n` in SQLite, `$n` in PostgreSQL). A failure after a stale record
/// (its lockout over, or its window past) starts a new count; reaching
/// `allowedFailures` locks for `lockout`; otherwise a lockout in force
/// stays (a reload that raised the limit never shortens one).
/// Values: 1 user key, 2 address, 3 now, 4 window, 5 allowed failures, 6 lockout.
public enum LoginFailureSQL {
    public static func record(parameter p: (Int) -> String) -> String {
        let stale = """
            ((login_failures.locked_until IS NOT NULL AND login_failures.locked_until <= \(p(3)))
             OR (login_failures.locked_until IS NULL AND \(p(3)) - login_failures.first_failure > \(p(4))))
            """
        let failures = "(CASE WHEN \(stale) THEN 1 ELSE login_failures.failures + 1 END)"
        return """
            INSERT INTO login_failures (user_key, address, failures, first_failure, locked_until)
            VALUES (\(p(1)), \(p(2)), 1, \(p(3)), CASE WHEN 1 >= \(p(5)) THEN \(p(3)) + \(p(6)) END)
            ON CONFLICT (user_key, address) DO UPDATE SET
                failures = \(failures),
                first_failure = CASE WHEN \(stale) THEN \(p(3)) ELSE login_failures.first_failure END,
                locked_until = CASE WHEN \(failures) >= \(p(5)) THEN \(p(3)) + \(p(6))
                                    WHEN \(stale) THEN NULL ELSE login_failures.locked_until END
            RETURNING failures, first_failure, locked_until
            """
    }
}
