import BlogModel

extension AccessTokens {
    /// Makes a bearer token with `scopes` as words given (IndieAuth's,
    /// such as "create media profile", already checked by the caller),
    /// kept in that order: Micropub reads its own words from it
    /// (`AccessToken.allows`) and passes over the others.
    public func issueBearer(userID: Int64, scopeWords: [String], label: String) throws(StorageError) -> (secret: String, token: AccessToken) {
        let secret = Secret.make(.bearer)
        let token = try storage.createToken(userID: userID, secretHash: Secret.hash(secret), kind: .bearer,
                                            scopes: scopeWords.joined(separator: " "), label: Self.label(label),
                                            at: now(), expires: nil)
        return (secret, token)
    }

    /// Revokes the bearer token whose secret is `secret`; false when it
    /// names none (unknown, expired, a session's, or its user gone or
    /// suspended: what `verify` refuses).
    public func revoke(secret: String) throws(StorageError) -> Bool {
        guard let (user, token) = try verify(secret, kind: .bearer) else { return false }
        return try storage.deleteToken(id: token.id, ofUserID: user.id)
    }
}
