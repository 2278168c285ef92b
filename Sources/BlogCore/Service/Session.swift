import BlogWire
/// What the service knows of one client connection.
public struct Session: Sendable {
    /// The peer's IP address (IPv4-mapped IPv6 written as IPv4), the key of
    /// login leases.
    public let peerAddress: String
    /// Users (by `Username.key`) who registered or logged in on this connection.
    public internal(set) var authenticatedUsers: Set<String> = []

    public init(peerAddress: String) {
        self.peerAddress = peerAddress
    }
}
