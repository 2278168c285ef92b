import BlogModel
import Foundation
import GRDB

/// IndieAuth authorization codes in SQLite (`authorization_codes`,
/// migration v14). Times are UTC text to the millisecond, as tokens' are.
extension SQLiteStore {
    public func storeAuthorizationCode(_ code: AuthorizationCode) throws(StorageError) {
        do {
            try gate.pass { () throws(StorageError) in
                try write { db in
                    try db.execute(sql: """
                        INSERT INTO authorization_codes (code_hash, user_id, client_id, redirect_uri, scopes, code_challenge,
                                                         created_at, expires_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [code.codeHash, code.userID, code.clientID, code.redirectURI, code.scopes,
                                         code.codeChallenge, code.createdAt.wholeMilliseconds,
                                         code.expiresAt.wholeMilliseconds])
                }
            }
        } catch .nameTaken {
            // `write` reads every unique violation as a taken user name;
            // here the one unique column is the hash.
            throw .tokenHashTaken
        }
    }

    public func authorizationCode(hash codeHash: String) throws(StorageError) -> AuthorizationCode? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.codeColumns) FROM authorization_codes WHERE code_hash = ?",
                             arguments: [codeHash]).map(Self.code)
        }
    }

    public func claimAuthorizationCode(hash codeHash: String, at date: Date) throws(StorageError) -> AuthorizationCodeClaim {
        let used = date.wholeMilliseconds
        return try gate.pass { () throws(StorageError) in
            // One transaction of the one writer: no two callers both see it unused.
            try write { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT \(Self.codeColumns) FROM authorization_codes WHERE code_hash = ?",
                                                 arguments: [codeHash]) else { return AuthorizationCodeClaim.unknown }
                var code = try Self.code(row)
                if code.usedAt != nil { return .claimedBefore(code) }
                try db.execute(sql: "UPDATE authorization_codes SET used_at = ? WHERE code_hash = ?", arguments: [used, codeHash])
                code.usedAt = used
                return .claimed(code)
            }
        }
    }

    public func setAuthorizationCodeToken(hash codeHash: String, tokenID: Int64) throws(StorageError) {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: "UPDATE authorization_codes SET token_id = ? WHERE code_hash = ?", arguments: [tokenID, codeHash])
            }
        }
    }

    @discardableResult
    public func deleteAuthorizationCodes(expiredBefore date: Date) throws(StorageError) -> Int {
        try gate.pass { () throws(StorageError) in
            try write { db in
                // The text compares as the time it spells: both sides have the same form.
                try db.execute(sql: "DELETE FROM authorization_codes WHERE expires_at < ?", arguments: [date.wholeMilliseconds])
                return db.changesCount
            }
        }
    }

    private static let codeColumns = """
        code_hash, user_id, client_id, redirect_uri, scopes, code_challenge, created_at, expires_at, used_at, token_id
        """

    private static func code(_ row: Row) throws -> AuthorizationCode {
        AuthorizationCode(codeHash: row[0], userID: row[1], clientID: row[2], redirectURI: row[3], scopes: row[4],
                          codeChallenge: row[5], createdAt: Date.nearestMillisecond(row[6]),
                          expiresAt: Date.nearestMillisecond(row[7]), usedAt: (row[8] as Date?).map(Date.nearestMillisecond),
                          tokenID: row[9])
    }
}
