import BlogModel
import Foundation
import PostgresNIO

/// Access tokens (`access_tokens`, migration 7). Times travel as whole
/// milliseconds (`Milliseconds`), as users' and posts' do, so a record
/// read back equals the one its insert returned, on either backend.
extension PostgresStore {
    private static let tokenColumns = """
        id, user_id, kind, scopes, label, \(Milliseconds.select("created_at")), \(Milliseconds.select("expires_at"))
        """

    private static func token(_ row: PostgresRow) throws -> AccessToken {
        let (id, userID, kind, scopes, label, created, expires) =
            try row.decode((Int64, Int64, String, String, String, Int64, Int64?).self)
        guard let parsed = AccessToken.Kind(rawValue: kind) else {
            // The column's CHECK allows no other value.
            throw StorageError.failed("an access token of unknown kind \(kind)")
        }
        return AccessToken(id: id, userID: userID, kind: parsed, scopes: scopes, label: label,
                           createdAt: Milliseconds.date(created), expiresAt: expires.map(Milliseconds.date))
    }

    public func createToken(userID: Int64, secretHash: String, kind: AccessToken.Kind, scopes: String, label: String,
                            at date: Date, expires: Date?) throws(StorageError) -> AccessToken {
        let created = Milliseconds.of(date)
        let expiry = expires.map(Milliseconds.of)
        let ids: [Int64]
        do {
            // `::bigint`: a NULL expiry goes as a value of no type.
            ids = try rows("""
                INSERT INTO access_tokens (user_id, secret_hash, kind, scopes, label, created_at, expires_at)
                VALUES (\(userID), \(secretHash), \(kind.rawValue), \(scopes), \(label),
                        timestamptz 'epoch' + \(created) * interval '1 millisecond',
                        timestamptz 'epoch' + \(expiry)::bigint * interval '1 millisecond')
                RETURNING id
                """) { try $0.decode(Int64.self) }
        } catch .nameTaken {
            // The table's one unique column is the hash (see `PostgresFailure`).
            throw .tokenHashTaken
        }
        guard let id = ids.first else { throw .failed("the insert returned no id") }
        return AccessToken(id: id, userID: userID, kind: kind, scopes: scopes, label: label,
                           createdAt: Milliseconds.date(created), expiresAt: expiry.map(Milliseconds.date))
    }

    public func token(secretHash: String) throws(StorageError) -> AccessToken? {
        try rows("SELECT \(unescaped: Self.tokenColumns) FROM access_tokens WHERE secret_hash = \(secretHash)",
                 Self.token).first
    }

    public func tokens(ofUserID userID: Int64) throws(StorageError) -> [AccessToken] {
        try rows("SELECT \(unescaped: Self.tokenColumns) FROM access_tokens WHERE user_id = \(userID) ORDER BY id DESC",
                 Self.token)
    }

    public func deleteToken(id: Int64, ofUserID userID: Int64) throws(StorageError) -> Bool {
        try deleting("DELETE FROM access_tokens WHERE id = \(id) AND user_id = \(userID) RETURNING 1") == 1
    }

    @discardableResult
    public func deleteTokens(ofUserID userID: Int64, kind: AccessToken.Kind?) throws(StorageError) -> Int {
        let kind = kind?.rawValue
        return try deleting("""
            DELETE FROM access_tokens WHERE user_id = \(userID) AND (\(kind)::text IS NULL OR kind = \(kind)::text)
            RETURNING 1
            """)
    }

    @discardableResult
    public func deleteTokens(expiredBefore date: Date) throws(StorageError) -> Int {
        try deleting("""
            DELETE FROM access_tokens
            WHERE expires_at < timestamptz 'epoch' + \(Milliseconds.of(date)) * interval '1 millisecond'
            RETURNING 1
            """)
    }

    /// Runs a `DELETE … RETURNING 1` (one statement, so durable when it
    /// returns); how many rows went.
    private func deleting(_ query: PostgresQuery) throws(StorageError) -> Int {
        try rows(query) { _ in () }.count
    }
}
