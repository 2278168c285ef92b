import BlogWire
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

/// How a client's address has fared with its password hashes lately, best
/// first: the order in which waiting hashes are taken.
public enum Standing: Int, Sendable, Equatable, CaseIterable, Comparable {
    /// A register or login succeeded from it lately, and nothing failed since.
    case proven
    /// Nothing lately, good or bad: a first-time user, or a fresh address.
    case unknown
    /// Its latest hash failed (an unknown name, a wrong password).
    case doubtful

    public static func < (a: Standing, b: Standing) -> Bool { a.rawValue < b.rawValue }
}
