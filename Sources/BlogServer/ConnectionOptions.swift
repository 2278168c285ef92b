import BlogCore

/// How connections behave; the network half of `BlogConfig`.
public struct ConnectionOptions: Sendable {
    /// Answer many messages per connection (otherwise one, then close).
    public var keepAlive = false
    public var maxMessageBytes = Frame.defaultMaxMessageBytes
    /// Seconds for a complete message to arrive (idle time with keep-alive).
    public var readTimeout = 10.0
    /// Seconds a closing connection waits for its reply to leave and for the
    /// peer to close, before the socket is closed anyway.
    public var lingerTimeout = 5.0
    /// Replies queued for a peer that does not read, before reading pauses.
    public var maxQueuedReplyBytes = 64 * 1024

    public init() {}
}
