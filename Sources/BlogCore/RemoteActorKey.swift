import BlogSignatures

/// A public key fetched from the fediverse, with the actor it speaks for
/// (a blog's own key pair, as stored, is BlogModel's `ActorKey`).
public struct RemoteActorKey: Sendable {
    /// The `keyId` signatures name (`https://m.example/users/bob#main-key`).
    public var keyID: String
    /// The actor that owns the key: what a verified request is from.
    public var owner: String
    public var publicKey: ActorPublicKey

    public init(keyID: String, owner: String, publicKey: ActorPublicKey) {
        self.keyID = keyID
        self.owner = owner
        self.publicKey = publicKey
    }
}

/// Why a signer's key could not be had.
public enum KeyFetchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key id is no http(s) URL (or is over 2,048 bytes).
    case badKeyID(String)
    /// As many key fetches as allowed are under way (or waited for).
    case busy
    /// The key's host, or the requesting address, has spent its budget of fetches.
    case overBudget(String)
    /// The fetch itself failed (network, limits, a private address).
    case fetch(OutgoingHTTPError)
    /// The server answered with this status.
    case status(Int)
    /// The answer is no JSON object holding the key id's key.
    case noKey(String)
    /// The key's owner is missing, or is not on the key id's host.
    case badOwner(String)
    /// The PEM is not an RSA public key of 2048 bits or more.
    case badKey(String)

    public var description: String {
        switch self {
        case .badKeyID(let id): "the key id \(id.prefix(200)) is not an http(s) URL"
        case .busy: "too many key fetches are under way"
        case .overBudget(let whose): "\(whose) has no key fetches left for now"
        case .fetch(let error): "fetching the key failed: \(error)"
        case .status(let status): "the key's server answered \(status)"
        case .noKey(let reason): "no usable key: \(reason)"
        case .badOwner(let reason): "the key's owner is unusable: \(reason)"
        case .badKey(let reason): "the key is unusable: \(reason)"
        }
    }
}
