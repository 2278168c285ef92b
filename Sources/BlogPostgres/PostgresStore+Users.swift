import BlogCore
import Foundation
import PostgresNIO

/// Users, the index of blogs and the admin listing.
extension PostgresStore {
    private static let userColumns = "id, name, password_hash, \(Milliseconds.select("created_at"))"

    private static func user(_ row: PostgresRow) throws -> UserRecord {
        let (id, name, hash, created) = try row.decode((Int64, String, String, Int64).self)
        return UserRecord(id: id, name: name, passwordHash: hash, createdAt: Milliseconds.date(created))
    }

    /// The user of that name, compared regardless of case (through the
    /// unique index on `lower(name)`).
    public func user(named name: String) throws(StorageError) -> UserRecord? {
        try rows("SELECT \(unescaped: Self.userColumns) FROM users WHERE lower(name) = lower(\(name))", Self.user).first
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

    /// Deletes a user (and, by cascade, their posts).
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
            SELECT u.name, \(unescaped: Milliseconds.select("u.created_at")),
                   count(p.id), max(\(unescaped: Milliseconds.select("p.created_at")))
            FROM users u LEFT JOIN posts p ON p.user_id = u.id
            GROUP BY u.id
            ORDER BY lower(u.name) COLLATE "C"
            """) { row in
            let (name, registered, count, last) = try row.decode((String, Int64, Int, Int64?).self)
            return UserSummary(name: name, registeredAt: Milliseconds.date(registered), postCount: count,
                               lastPostAt: last.map(Milliseconds.date))
        }
    }

    /// The most recently active blogs, for the index page, in one query:
    /// one index lookup per user for its newest post, and `limit` bounds
    /// what is returned (as `BlogStore`).
    public func blogIndex(limit: Int) throws(StorageError) -> [BlogEntry] {
        try rows("""
            SELECT name, last FROM (
                SELECT u.name AS name,
                       (SELECT \(unescaped: Milliseconds.select("p.created_at")) FROM posts p WHERE p.user_id = u.id
                        ORDER BY p.page DESC, p.id DESC LIMIT 1) AS last
                FROM users u) AS blogs
            ORDER BY last DESC NULLS LAST, lower(name) COLLATE "C"
            LIMIT \(limit)
            """) { row in
            let (name, last) = try row.decode((String, Int64?).self)
            return BlogEntry(name: name, lastPostAt: last.map(Milliseconds.date))
        }
    }
}
