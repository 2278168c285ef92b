import BlogWire
import BlogAuth
/// What the service knows of one client connection.
public struct Session: Sendable {
    /// The peer's IP address (IPv4-mapped IPv6 written as IPv4), the key of
    /// login leases.
    public let peerAddress: String
    /// Users (by `Username.key`) who registered or logged in on this connection.
    public internal(set) var authenticatedUsers: Set<String> = []
    /// Where the peer's password hashes wait: an address whose recent
    /// hashes failed waits behind the others, a new one behind those with
    /// a recent success.
    public var standing = Standing.proven
    /// A register or login grants the address a login lease (the blog
    /// protocol's way: the app posts on later connections). False for
    /// front doors with their own sessions (the web client).
    public var grantsLease = true

    public init(peerAddress: String) {
        self.peerAddress = peerAddress
    }

    /// A session of a front door that keeps its own sessions: a login
    /// proves the password and grants no lease.
    public init(peerAddress: String, grantsLease: Bool) {
        self.peerAddress = peerAddress
        self.grantsLease = grantsLease
    }

    /// A session of a user who proved who they are another way (a web
    /// session's cookie, a Micropub token): it may act as them, as after a
    /// login on the same connection.
    ///
    ///     var session = Session(peerAddress: "203.0.113.9", authenticatedAs: alice)
    ///     let reply = service.execute(.newPost(user: alice, title: "Hi", content: ""), session: &session)
    public init(peerAddress: String, authenticatedAs user: Username) {
        self.peerAddress = peerAddress
        authenticatedUsers = [user.key]
        grantsLease = false
    }
}
