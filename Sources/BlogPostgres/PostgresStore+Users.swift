import BlogModel
import Foundation
import PostgresNIO

/// Users, the index of blogs and the admin listing.
extension PostgresStore {
    private static let userColumns = "id, name, password_hash, \(Milliseconds.select("created_at")), suspended_at IS NOT NULL"

    private static func user(_ row: PostgresRow) throws -> UserRecord {
        let (id, name, hash, created, suspended) = try row.decode((Int64, String, String, Int64, Bool).self)
        return UserRecord(id: id, name: name, passwordHash: hash, createdAt: Milliseconds.date(created), suspended: suspended)
    }

    /// The user of that name, compared regardless of case (through the
    /// unique index on `lower(name)`).
    public func user(named name: String) throws(StorageError) -> UserRecord? {
        try rows("SELECT \(unescaped: Self.userColumns) FROM users WHERE lower(name) = lower(\(name))", Self.user).first
    }

    public func user(id: Int64) throws(StorageError) -> UserRecord? {
        try rows("SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(id)", Self.user).first
    }

    /// Inserts a user; `.nameTaken` when the name exists in any case.
    /// Returns once the commit is durable.
    public func createUser(name: String, passwordHash: String, at date: Date) throws(StorageError) -> UserRecord {
        let created = Milliseconds.of(date)
        let id = try rows("""
            INSERT INTO users (name, password_hash, created_at)
            VALUES (\(name), \(passwordHash), timestamptz 'epoch' + \(created) * interval '1 millisecond')
            RETURNING id
            """) { try $0.decode(Int64.self) }
        guard let id = id.first else { throw .failed("the insert returned no id") }
        return UserRecord(id: id, name: name, passwordHash: passwordHash, createdAt: Milliseconds.date(created))
    }

    /// Deletes a user (and, by cascade, their posts and access tokens).
    public func deleteUser(id: Int64) throws(StorageError) {
        try execute("DELETE FROM users WHERE id = \(id)")
    }

    /// Every user, by id.
    public func allUsers() throws(StorageError) -> [UserRecord] {
        try rows("SELECT \(unescaped: Self.userColumns) FROM users ORDER BY id", Self.user)
    }

    /// Every user with post count and last post time, by name regardless
    /// of case. (`COLLATE "C"`: names are ASCII, and the order must not
    /// depend on the database's locale, as SQLite's NOCASE does not.)
    public func userSummaries() throws(StorageError) -> [UserSummary] {
        try rows("""
            SELECT name, \(unescaped: Milliseconds.select("created_at")), post_count,
                   \(unescaped: Milliseconds.select("last_post_at")), suspended_at IS NOT NULL
            FROM users ORDER BY lower(name) COLLATE "C"
            """) { row in
            let (name, registered, count, last, suspended) = try row.decode((String, Int64, Int, Int64?, Bool).self)
            return UserSummary(name: name, registeredAt: Milliseconds.date(registered), postCount: count,
                               lastPostAt: last.map(Milliseconds.date), suspended: suspended)
        }
    }

    /// The most recently active blogs, for the index page: `limit` steps
    /// along `users_by_activity`, each with its newest post's title by
    /// primary key (as `SQLiteStore`).
    public func blogIndex(limit: Int) throws(StorageError) -> [BlogEntry] {
        try rows("""
            SELECT u.name, u.post_count, u.last_post_id, p.title, \(unescaped: Milliseconds.select("u.last_post_at"))
            FROM users u LEFT JOIN posts p ON p.id = u.last_post_id
            ORDER BY u.last_post_at DESC NULLS LAST, u.id DESC
            LIMIT \(limit)
            """, Self.blogEntry)
    }

    /// `blogIndex(limit:)` for the blogs whose newest post is from `date`
    /// on: the steps along `users_by_activity` stop at `date`.
    public func blogIndex(activeSince date: Date, limit: Int) throws(StorageError) -> [BlogEntry] {
        try rows("""
            SELECT u.name, u.post_count, u.last_post_id, p.title, \(unescaped: Milliseconds.select("u.last_post_at"))
            FROM users u LEFT JOIN posts p ON p.id = u.last_post_id
            WHERE u.last_post_at >= timestamptz 'epoch' + \(Milliseconds.of(date)) * interval '1 millisecond'
            ORDER BY u.last_post_at DESC NULLS LAST, u.id DESC
            LIMIT \(limit)
            """, Self.blogEntry)
    }

    @Sendable private static func blogEntry(_ row: PostgresRow) throws -> BlogEntry {
        let (name, count, lastID, title, last) = try row.decode((String, Int, Int64?, String?, Int64?).self)
        return BlogEntry(name: name, postCount: count, lastPostID: lastID, lastPostTitle: title,
                         lastPostAt: last.map(Milliseconds.date))
    }

    public func setSuspended(userID: Int64, _ suspended: Bool, at date: Date) throws(StorageError) {
        let at = Milliseconds.of(date)
        let changed = try rows("""
            UPDATE users SET suspended_at = CASE WHEN \(suspended) THEN timestamptz 'epoch' + \(at) * interval '1 millisecond' END
            WHERE id = \(userID) RETURNING id
            """) { try $0.decode(Int64.self) }
        guard !changed.isEmpty else { throw .unknownUser }
    }

    /// Sets the password hash, and ends the user's leases and web sessions:
    /// one statement, so one commit (PostgreSQL runs every data-changing
    /// `WITH` part, whether the outer query reads it or not).
    public func updatePassword(userID: Int64, passwordHash: String) throws(StorageError) {
        let session = AccessToken.Kind.session.rawValue
        let changed = try rows("""
            WITH changed AS (UPDATE users SET password_hash = \(passwordHash) WHERE id = \(userID) RETURNING id, lower(name) AS user_key),
                 leases_ended AS (DELETE FROM leases WHERE user_key IN (SELECT user_key FROM changed)),
                 sessions_ended AS (DELETE FROM access_tokens WHERE user_id IN (SELECT id FROM changed) AND kind = \(session))
            SELECT id FROM changed
            """) { try $0.decode(Int64.self) }
        guard !changed.isEmpty else { throw .unknownUser }
    }
}
