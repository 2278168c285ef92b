import Foundation

/// Access tokens (`AccessTokens`): web sessions and bearer tokens. Only a
/// secret's SHA-256 (64 hex digits) is stored, in a unique column; a
/// user's tokens go with the user.
public protocol TokenStorage: Sendable {
    /// Stores a token of an existing user (`.unknownUser` otherwise), made
    /// at `date` and good until `expires` (nil: until revoked); durable
    /// before it returns. Times are kept to the millisecond, as the
    /// returned record has them. A hash stored already throws
    /// `StorageError.tokenHashTaken`, and nothing is stored.
    func createToken(userID: Int64, secretHash: String, kind: AccessToken.Kind, scopes: String, label: String,
                     at date: Date, expires: Date?) throws(StorageError) -> AccessToken

    /// The token whose secret hashes to `secretHash`, expired or not (the
    /// caller judges expiry); nil when there is none.
    func token(secretHash: String) throws(StorageError) -> AccessToken?

    /// The user's tokens, newest first (in the order they were made,
    /// whatever their times).
    func tokens(ofUserID userID: Int64) throws(StorageError) -> [AccessToken]

    /// Deletes token `id` if it is `userID`'s; false when the user has no
    /// such token (another user's token stays).
    func deleteToken(id: Int64, ofUserID userID: Int64) throws(StorageError) -> Bool

    /// Deletes the user's tokens of `kind` (every kind when nil): logging
    /// out everywhere. Returns how many went.
    @discardableResult
    func deleteTokens(ofUserID userID: Int64, kind: AccessToken.Kind?) throws(StorageError) -> Int

    /// Deletes the tokens that expired before `date` (never those without
    /// an expiry). Returns how many went.
    @discardableResult
    func deleteTokens(expiredBefore date: Date) throws(StorageError) -> Int
}
