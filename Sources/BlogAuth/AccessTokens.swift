import Foundation
import BlogModel

/// Issues and checks access tokens: the credential behind a web session
/// (its cookie) and behind a Micropub bearer token.
///
/// A token's secret is shown once, when it is made; the database keeps
/// only its SHA-256 (`Secret`), so a copy of the database lets nobody
/// in, and a presented secret is checked by hashing it and looking the
/// hash up: no comparison on the secret itself can leak, through its
/// timing, how much of a guess was right.
///
///     let tokens = AccessTokens(storage: store)
///     let (secret, _) = try tokens.issue(userID: alice.id, kind: .bearer, scopes: [.create],
///                                        label: "https://app.example/", lifetime: nil)
///     if let (user, token) = try tokens.verify(secret, kind: .bearer), token.allows(.create) { … }
public struct AccessTokens: Sendable {
    public let storage: any TokenStorage & UserStorage
    let now: @Sendable () -> Date

    public init(storage: any TokenStorage & UserStorage, now: @escaping @Sendable () -> Date = Date.init) {
        self.storage = storage
        self.now = now
    }

    /// Makes a token of `userID` (`.unknownUser` when there is no such
    /// user) and returns its secret, which nothing keeps, with the stored
    /// record. `lifetime` is in seconds (nil: until revoked). A session's
    /// `scopes` are ignored and stored empty: a session may do what its
    /// user may. The label is kept as `Self.label(_:)` cleans it.
    public func issue(userID: Int64, kind: AccessToken.Kind, scopes: Set<Scope>, label: String,
                      lifetime: Double?) throws(StorageError) -> (secret: String, token: AccessToken) {
        let secret = Secret.make(kind)
        let date = now()
        let token = try storage.createToken(userID: userID, secretHash: Secret.hash(secret), kind: kind,
                                            scopes: kind == .session ? "" : Scope.text(scopes), label: Self.label(label),
                                            at: date, expires: lifetime.map { date.addingTimeInterval($0) })
        return (secret, token)
    }

    /// The token a presented `secret` stands for, with its user; nil when
    /// the secret is not one this server could have made (checked before
    /// any hashing: a hostile client may send megabytes), unknown, of
    /// another kind, expired, or its user is suspended or gone.
    public func verify(_ secret: String, kind: AccessToken.Kind) throws(StorageError) -> (user: UserRecord, token: AccessToken)? {
        guard Secret.isWellFormed(secret),
              let token = try storage.token(secretHash: Secret.hash(secret)),
              token.kind == kind
        else { return nil }
        if let expiry = token.expiresAt, expiry <= now() { return nil }
        // Read now, not from a cache: a suspension takes effect at once.
        guard let user = try storage.user(id: token.userID), !user.suspended else { return nil }
        return (user, token)
    }

    /// A label as it is kept: at most `maxLabelLength` characters, without
    /// control characters (an escape sequence would reach the admin's
    /// terminal through `blogd tokens`) or bidirectional formatting ones
    /// (which would make a label read as another on the settings page);
    /// "token" when nothing is left.
    public static func label(_ text: String) -> String {
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: text.unicodeScalars.lazy.filter { scalar in
            scalar.properties.generalCategory != .control && !bidiControls.contains(scalar.value)
        }.prefix(maxLabelLength))
        let label = String(kept)
        return label.trimmingCharacters(in: .whitespaces).isEmpty ? "token" : label
    }

    public static let maxLabelLength = 100

    /// U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069.
    private static let bidiControls: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
                                                     0x2066, 0x2067, 0x2068, 0x2069]

    /// Revokes token `id` if it is `userID`'s; false when the user has no
    /// such token.
    public func revoke(id: Int64, ofUserID userID: Int64) throws(StorageError) -> Bool {
        try storage.deleteToken(id: id, ofUserID: userID)
    }

    /// Ends every web session of the user ("log out everywhere"); the
    /// bearer tokens stay. Returns how many ended.
    public func endSessions(ofUserID userID: Int64) throws(StorageError) -> Int {
        try storage.deleteTokens(ofUserID: userID, kind: .session)
    }

    /// The user's tokens, newest first (their secrets are nowhere).
    public func list(ofUserID userID: Int64) throws(StorageError) -> [AccessToken] {
        try storage.tokens(ofUserID: userID)
    }
}
