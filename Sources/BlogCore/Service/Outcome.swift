import BlogWire
/// The result of handling one message: the reply, and what the request was,
/// for the audit log. It never holds a password or post text.
public struct Outcome: Sendable, Equatable {
    public var reply: Reply
    /// `register`, `login`, `newpost`, or `nil` when the message did not parse.
    public var command: String?
    public var user: String?

    public init(reply: Reply, command: String? = nil, user: String? = nil) {
        self.reply = reply
        self.command = command
        self.user = user
    }
}
