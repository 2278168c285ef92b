import BlogWire
/// The result of handling one message: the reply, and what the request was,
/// for the audit log. It never holds a password or post text.
public struct Outcome: Sendable, Equatable {
    public var reply: Reply
    /// `register`, `login`, `newpost`, ..., or `nil` when the message did not parse.
    public var command: String?
    public var user: String?
    /// The reply's own bytes when it carries more than `reply` says (a list
    /// of posts, `Reply.postListing`); nil for the fixed replies.
    public var body: [UInt8]?
    /// The post a `newpost` or `geopost` stored (for Micropub's `Location`).
    public var postID: Int64?

    public init(reply: Reply, command: String? = nil, user: String? = nil, body: [UInt8]? = nil, postID: Int64? = nil) {
        self.reply = reply
        self.postID = postID
        self.command = command
        self.user = user
        self.body = body
    }

    /// The bytes to send.
    public var bytes: [UInt8] { body ?? reply.bytes }
}
