import Foundation

/// IndieAuth authorization codes: what a user approved for an app, kept
/// from the approval until the app trades the code for a token (or
/// until it expires, a minute later). Only the code's SHA-256 is stored,
/// so a copy of the database redeems nothing; a code goes with its user.
/// Kept in the database, not in memory, so that the instance that
/// redeems a code need not be the one that made it.
public protocol AuthorizationCodeStorage: Sendable {
    /// Stores a new code (durable before it returns); `.unknownUser` when
    /// its user does not exist, `StorageError.tokenHashTaken` when its
    /// hash is stored already (and nothing is stored).
    func storeAuthorizationCode(_ code: AuthorizationCode) throws(StorageError)

    /// The code whose hash is `codeHash`, used or not, expired or not;
    /// nil when there is none.
    func authorizationCode(hash codeHash: String) throws(StorageError) -> AuthorizationCode?

    /// Marks the code whose hash is `codeHash` used at `date`, at most
    /// once across every instance: `.claimed` for the one caller that
    /// did it, `.claimedBefore` for any later one (with the record as it
    /// is, `usedAt` set), `.unknown` when no such code is stored. Expiry
    /// is the caller's to judge.
    func claimAuthorizationCode(hash codeHash: String, at date: Date) throws(StorageError) -> AuthorizationCodeClaim

    /// Notes the access token a code was traded for, so that a second use
    /// of the code can revoke it.
    func setAuthorizationCodeToken(hash codeHash: String, tokenID: Int64) throws(StorageError)

    /// Deletes the codes that expired before `date`, used or not. Returns
    /// how many went.
    @discardableResult
    func deleteAuthorizationCodes(expiredBefore date: Date) throws(StorageError) -> Int
}

/// One authorization code as stored. Times are kept to the millisecond.
public struct AuthorizationCode: Sendable, Equatable {
    /// SHA-256 of the code, 64 lower-case hex digits.
    public var codeHash: String
    public var userID: Int64
    /// The app's `client_id` and `redirect_uri`, as the authorization
    /// request had them: the token request must name the same.
    public var clientID: String
    public var redirectURI: String
    /// The scopes the user granted, space-separated ("create profile").
    public var scopes: String
    /// PKCE (RFC 7636): the S256 challenge the app sent, base64url.
    public var codeChallenge: String
    public var createdAt: Date
    public var expiresAt: Date
    /// When it was traded (or tried to be); nil while unused.
    public var usedAt: Date?
    /// The access token it was traded for.
    public var tokenID: Int64?

    public init(codeHash: String, userID: Int64, clientID: String, redirectURI: String, scopes: String,
                codeChallenge: String, createdAt: Date, expiresAt: Date, usedAt: Date? = nil, tokenID: Int64? = nil) {
        self.codeHash = codeHash
        self.userID = userID
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.codeChallenge = codeChallenge
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.tokenID = tokenID
    }
}

/// What claiming a code found.
public enum AuthorizationCodeClaim: Sendable, Equatable {
    /// This call claimed it: the record, `usedAt` now set.
    case claimed(AuthorizationCode)
    /// It was claimed before: a replay.
    case claimedBefore(AuthorizationCode)
    case unknown
}
