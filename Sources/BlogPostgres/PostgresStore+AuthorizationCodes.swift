import BlogModel
import Foundation
import PostgresNIO

/// IndieAuth authorization codes (`authorization_codes`, migration 12).
/// Times travel as whole milliseconds, as tokens' do.
extension PostgresStore {
    private static let codeColumns = """
        code_hash, user_id, client_id, redirect_uri, scopes, code_challenge, \(Milliseconds.select("created_at")),
        \(Milliseconds.select("expires_at")), \(Milliseconds.select("used_at")), token_id
        """

    private static func code(_ row: PostgresRow) throws -> AuthorizationCode {
        let (hash, userID, clientID, redirectURI, scopes, challenge, created, expires, used, tokenID) =
            try row.decode((String, Int64, String, String, String, String, Int64, Int64, Int64?, Int64?).self)
        return AuthorizationCode(codeHash: hash, userID: userID, clientID: clientID, redirectURI: redirectURI,
                                 scopes: scopes, codeChallenge: challenge, createdAt: Milliseconds.date(created),
                                 expiresAt: Milliseconds.date(expires), usedAt: used.map(Milliseconds.date), tokenID: tokenID)
    }

    public func storeAuthorizationCode(_ code: AuthorizationCode) throws(StorageError) {
        do {
            try execute("""
                INSERT INTO authorization_codes (code_hash, user_id, client_id, redirect_uri, scopes, code_challenge,
                                                 created_at, expires_at)
                VALUES (\(code.codeHash), \(code.userID), \(code.clientID), \(code.redirectURI), \(code.scopes),
                        \(code.codeChallenge),
                        timestamptz 'epoch' + \(Milliseconds.of(code.createdAt)) * interval '1 millisecond',
                        timestamptz 'epoch' + \(Milliseconds.of(code.expiresAt)) * interval '1 millisecond')
                """)
        } catch .nameTaken {
            // The table's one unique column is the hash (see `PostgresFailure`).
            throw .tokenHashTaken
        }
    }

    public func authorizationCode(hash codeHash: String) throws(StorageError) -> AuthorizationCode? {
        try rows("SELECT \(unescaped: Self.codeColumns) FROM authorization_codes WHERE code_hash = \(codeHash)", Self.code).first
    }

    public func claimAuthorizationCode(hash codeHash: String, at date: Date) throws(StorageError) -> AuthorizationCodeClaim {
        // The row lock makes a second UPDATE wait for the first and then
        // find `used_at` set: one claim, however many instances race.
        if let claimed = try rows("""
            UPDATE authorization_codes
            SET used_at = timestamptz 'epoch' + \(Milliseconds.of(date)) * interval '1 millisecond'
            WHERE code_hash = \(codeHash) AND used_at IS NULL
            RETURNING \(unescaped: Self.codeColumns)
            """, Self.code).first {
            return .claimed(claimed)
        }
        let before = try rows("SELECT \(unescaped: Self.codeColumns) FROM authorization_codes WHERE code_hash = \(codeHash)",
                              Self.code).first
        return before.map(AuthorizationCodeClaim.claimedBefore) ?? .unknown
    }

    public func setAuthorizationCodeToken(hash codeHash: String, tokenID: Int64) throws(StorageError) {
        try execute("UPDATE authorization_codes SET token_id = \(tokenID) WHERE code_hash = \(codeHash)")
    }

    @discardableResult
    public func deleteAuthorizationCodes(expiredBefore date: Date) throws(StorageError) -> Int {
        try rows("""
            DELETE FROM authorization_codes
            WHERE expires_at < timestamptz 'epoch' + \(Milliseconds.of(date)) * interval '1 millisecond'
            RETURNING 1
            """) { _ in () }.count
    }
}
