import BlogWire

/// The Swift counterpart of the original iPhone app's networking class:
/// each call opens a new TCP connection, sends one message, reads one
/// reply and closes, as the original client does.
///
/// Refusals and server failures are replies (`BlogReply`); only a missing
/// or senseless reply, or arguments the client will not send, throw.
///
///     let client = BlogClient(port: 51515)
///     guard try client.login(user: "alice", password: "secret") == .ok else { ... }
///     let reply = try client.post(user: "alice", title: "Hello", content: "First post.")
public struct BlogClient: Sendable {
    /// A host name, an IPv4 or an IPv6 literal.
    public var host: String
    public var port: Int
    /// Seconds allowed for connecting, and again for sending the message
    /// and receiving the reply.
    public var timeout: Double

    public init(host: String = "localhost", port: Int = 51515, timeout: Double = 10) {
        self.host = host
        self.port = port
        self.timeout = timeout
    }

    /// `register:USERNAME:PASSWORD`: `.ok` when the user and the page were
    /// created, `.taken` when the name exists already (in any case).
    public func register(user: String, password: String) throws(BlogClientError) -> BlogReply {
        try send(.registering(user: user, password: password))
    }

    /// `login:USERNAME:PASSWORD`: `.ok` when name and password are right,
    /// `.rejected` otherwise. A login lets this address post as the user
    /// for the server's login lease (1 hour by default).
    public func login(user: String, password: String) throws(BlogClientError) -> BlogReply {
        try send(.loggingIn(user: user, password: password))
    }

    /// `newpost:USERNAME:TITLE:CONTENT`: `.ok` when stored and on the page,
    /// `.rejected` for an unknown user or one not logged in from this
    /// address (log in first, as the original app does).
    /// With `place`, sent as `geopost`: the post shows where it was written.
    public func post(user: String, title: String, content: String, place: Place? = nil) throws(BlogClientError) -> BlogReply {
        try send(.posting(user: user, title: title, content: content, place: place))
    }

    /// `posts:USERNAME`: `.ok` with the user's newest posts (at most 50,
    /// newest first), or `.rejected` (not logged in from this address, or
    /// no such user) with none.
    public func posts(user: String) throws(BlogClientError) -> (reply: BlogReply, posts: [PostSummary]) {
        let (reply, text) = try exchange(.listing(user: user))
        guard reply == .ok else { return (reply, []) }
        guard let posts = Reply.parsePostListing(text) else { throw .unexpectedReply(text) }
        return (.ok, posts.map { PostSummary(id: $0.id, date: $0.date, title: $0.title) })
    }

    /// `editpost:USERNAME:ID:TITLE:CONTENT`: `.ok` when stored and on every
    /// page, `.rejected` when the post is not this user's (or there is no
    /// such post, or the user is not logged in from this address).
    public func edit(user: String, id: Int64, title: String, content: String) throws(BlogClientError) -> BlogReply {
        try send(.editing(user: user, id: id, title: title, content: content))
    }

    /// `delpost:USERNAME:ID`: `.ok` when deleted and off every page,
    /// `.rejected` as for `edit`.
    public func delete(user: String, id: Int64) throws(BlogClientError) -> BlogReply {
        try send(.deleting(user: user, id: id))
    }

    /// Sends any request on a connection of its own and returns the outcome.
    /// Throws `.unexpectedReply` when the reply belongs to another command.
    public func send(_ request: Request) throws(BlogClientError) -> BlogReply {
        try exchange(request).reply
    }

    private func exchange(_ request: Request) throws(BlogClientError) -> (reply: BlogReply, text: String) {
        let message = try request.wireMessage()
        let connection = try BlogConnection(host: host, port: port, timeout: timeout)
        defer { connection.close() }
        let reply = try connection.send(raw: message)
        guard let outcome = BlogReply(reply, answering: request) else {
            throw .unexpectedReply(reply.rawValue)
        }
        return (outcome, connection.lastReplyText)
    }
}

/// One line of `posts`: a post's id, date (UTC, ISO 8601) and title.
public struct PostSummary: Sendable, Equatable {
    public var id: Int64
    public var date: String
    public var title: String

    public init(id: Int64, date: String, title: String) {
        self.id = id
        self.date = date
        self.title = title
    }
}
