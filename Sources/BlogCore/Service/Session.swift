import BlogWire
/// What the service knows of one client connection.
public struct Session: Sendable {
    /// The peer's IP address (IPv4-mapped IPv6 written as IPv4), the key of
    /// login leases.
    public let peerAddress: String
    /// Users (by `Username.key`) who registered or logged in on this connection.
    public internal(set) var authenticatedUsers: Set<String> = []
    /// Where the peer's password hashes wait: an address whose recent
    /// hashes failed waits behind the ones in good standing.
    public var standing = Standing.good

    public init(peerAddress: String) {
        self.peerAddress = peerAddress
    }
}

/// How a client's address has fared with its password hashes lately.
public enum Standing: Sendable, Equatable {
    /// Never failed, or succeeded since it last did.
    case good
    /// Its recent hashes failed (unknown names, wrong passwords).
    case doubtful
}
