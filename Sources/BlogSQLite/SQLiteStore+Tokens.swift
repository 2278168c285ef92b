import BlogModel
import Foundation
import GRDB

/// Access tokens in SQLite (`access_tokens`, migration v9). Times are UTC
/// text to the millisecond, as users' and posts' are, so a record read
/// back equals the one its insert returned.
extension SQLiteStore {
    public func createToken(userID: Int64, secretHash: String, kind: AccessToken.Kind, scopes: String, label: String,
                            at date: Date, expires: Date?) throws(StorageError) -> AccessToken {
        let created = date.wholeMilliseconds
        let expires = expires?.wholeMilliseconds
        do {
            return try gate.pass { () throws(StorageError) in
                try write { db in
                    try db.execute(sql: """
                        INSERT INTO access_tokens (user_id, secret_hash, kind, scopes, label, created_at, expires_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [userID, secretHash, kind.rawValue, scopes, label, created, expires])
                    return AccessToken(id: db.lastInsertedRowID, userID: userID, kind: kind, scopes: scopes, label: label,
                                       createdAt: created, expiresAt: expires)
                }
            }
        } catch .nameTaken {
            // `write` reads every unique violation as a taken user name;
            // here the one unique column is the hash.
            throw .tokenHashTaken
        }
    }

    public func token(secretHash: String) throws(StorageError) -> AccessToken? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.tokenColumns) FROM access_tokens WHERE secret_hash = ?",
                             arguments: [secretHash]).map(Self.token)
        }
    }

    public func tokens(ofUserID userID: Int64) throws(StorageError) -> [AccessToken] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.tokenColumns) FROM access_tokens WHERE user_id = ? ORDER BY id DESC",
                             arguments: [userID]).map(Self.token)
        }
    }

    public func deleteToken(id: Int64, ofUserID userID: Int64) throws(StorageError) -> Bool {
        try changing("DELETE FROM access_tokens WHERE id = ? AND user_id = ?", [id, userID]) == 1
    }

    @discardableResult
    public func deleteTokens(ofUserID userID: Int64, kind: AccessToken.Kind?) throws(StorageError) -> Int {
        try changing("DELETE FROM access_tokens WHERE user_id = ?1 AND (?2 IS NULL OR kind = ?2)", [userID, kind?.rawValue])
    }

    @discardableResult
    public func deleteTokens(expiredBefore date: Date) throws(StorageError) -> Int {
        // The text compares as the time it spells: both sides have the same form.
        try changing("DELETE FROM access_tokens WHERE expires_at < ?", [date.wholeMilliseconds])
    }

    /// One statement through group commit (durable when it returns); how
    /// many rows it changed.
    private func changing(_ sql: String, _ arguments: StatementArguments) throws(StorageError) -> Int {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: sql, arguments: arguments)
                return db.changesCount
            }
        }
    }

    private static let tokenColumns = "id, user_id, kind, scopes, label, created_at, expires_at"

    private static func token(_ row: Row) throws -> AccessToken {
        let kind: String = row[2]
        guard let parsed = AccessToken.Kind(rawValue: kind) else {
            // The column's CHECK allows no other value.
            throw StorageError.failed("an access token of unknown kind \(kind)")
        }
        return AccessToken(id: row[0], userID: row[1], kind: parsed, scopes: row[3], label: row[4],
                           createdAt: Date.nearestMillisecond(row[5]),
                           expiresAt: (row[6] as Date?).map(Date.nearestMillisecond))
    }
}
