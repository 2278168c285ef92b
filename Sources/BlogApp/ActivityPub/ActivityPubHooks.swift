/// What the ActivityPub documents need from other parts of blogd, given
/// as closures so that each is wired where it lives (`blogd`): the
/// blog's key, its followers, its author's choice on follows.
///
///     var hooks = ActivityPubHooks(version: "0.17.0")
///     hooks.publicKeyPEM = { userID in try keys.publicKeyPEM(ofUserID: userID) }
public struct ActivityPubHooks: Sendable {
    /// The blog's RSA public key, PEM (SPKI), made on first need. Throws
    /// when it cannot be had now: the actor is answered `503`.
    public var publicKeyPEM: @Sendable (_ userID: Int64) throws -> String
    /// How many actors follow the blog (its followers collection's
    /// `totalItems`).
    public var followerCount: @Sendable (_ userID: Int64) throws -> Int
    /// Whether the blog's follows wait for its author's yes.
    public var manuallyApprovesFollowers: @Sendable (_ userID: Int64) throws -> Bool
    /// Whether anyone may register (NodeInfo's `openRegistrations`).
    public var openRegistrations: @Sendable () -> Bool
    /// blogd's version, for NodeInfo.
    public var version: String
    /// The site's own actor's RSA public key, PEM (SPKI), made on first
    /// need; throws when it cannot be had now (`BASE ap` answers `503`).
    public var instanceKeyPEM: @Sendable () throws -> String = { throw ActivityPubError.noKey }

    /// No key yet (the actor answers 503 until `publicKeyPEM` is given),
    /// no followers, follows accepted at once, registration open.
    public init(version: String) {
        self.version = version
        publicKeyPEM = { _ in throw ActivityPubError.noKey }
        followerCount = { _ in 0 }
        manuallyApprovesFollowers = { _ in false }
        openRegistrations = { true }
    }
}

/// Why a document could not be made now.
public enum ActivityPubError: Error, Equatable, Sendable {
    /// No key store is wired to `ActivityPubHooks.publicKeyPEM`.
    case noKey
}
