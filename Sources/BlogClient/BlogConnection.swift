import BlogSockets
import BlogWire

/// One TCP connection to a blog server, with blocking calls that each give
/// up after `timeout` seconds.
///
/// The original client sends one message per connection; `BlogClient` does
/// the same with a new `BlogConnection` each time. A server with
/// `keep_alive` on answers many messages on one connection: call `send`
/// again and again (a load generator does). Replies are read with BlogCore's
/// `FrameDecoder` and parsed into BlogCore's `Reply`.
///
/// Not thread-safe: one thread uses a connection at a time.
public final class BlogConnection {
    /// Longest reply accepted; the protocol's replies are a few bytes.
    public static let maxReplyBytes = 64 * 1024

    /// The host as given (name or literal).
    public let host: String
    public let port: Int
    /// Seconds allowed for each call (`send`, `write`, `readReply`).
    public var timeout: Double
    /// The numeric address connected to, e.g. `127.0.0.1` or `::1`.
    public let peerAddress: String

    private let socket: Socket
    private var isClosed = false
    private var decoder = FrameDecoder(maxMessageBytes: BlogConnection.maxReplyBytes)
    /// Complete replies received and not yet handed out, oldest first.
    private var replies: [[UInt8]] = []
    /// The text of the last reply read, terminator excluded (a list of
    /// posts is more than its `Reply`).
    public private(set) var lastReplyText = ""
    /// The last bytes received, for reporting a reply cut short.
    private var recent: [UInt8] = []
    /// No more bytes will come: the server closed its side, reset the
    /// connection, or `close()` was called.
    private var readEnded = false
    /// A send failed: the server is gone.
    private var writeFailed = false
    private var replyTooLong = false

    /// Connects to `host` (a name, an IPv4 or an IPv6 literal) at `port`,
    /// trying each of its addresses in turn, within `timeout` seconds.
    public init(host: String = "localhost", port: Int = 51515, timeout: Double = 10) throws(BlogClientError) {
        self.host = host
        self.port = port
        self.timeout = timeout
        let (socket, peer) = try Dialer.connect(host: host, port: port, until: Deadline(seconds: timeout))
        self.socket = socket
        peerAddress = peer.host
    }

    deinit { close() }

    /// Sends a request and returns the server's reply to it.
    ///
    /// The request is checked and encoded first (`Request.wireMessage()`),
    /// so nothing leaves when it breaks the field rules.
    public func send(_ request: Request) throws(BlogClientError) -> Reply {
        try send(raw: request.wireMessage())
    }

    /// Sends `message` exactly as given (it should end in `[E];`) and returns
    /// the next reply. If the server answers before the whole message is
    /// out (`err:SIZE`, `err:BUSY`), the rest is not sent.
    public func send(raw message: [UInt8]) throws(BlogClientError) -> Reply {
        let deadline = Deadline(seconds: timeout)
        try write(message, until: deadline, stopOnReply: true)
        return try readReply(until: deadline)
    }

    /// Sends bytes without waiting for a reply: part of a message, or many
    /// messages to pipeline. Replies that arrive meanwhile are kept for
    /// `readReply`.
    public func write(_ bytes: [UInt8]) throws(BlogClientError) {
        try write(bytes, until: Deadline(seconds: timeout), stopOnReply: false)
    }

    /// Waits for the next reply. Throws `.unexpectedReply` for text that is
    /// not one of the protocol's replies.
    public func readReply() throws(BlogClientError) -> Reply {
        try readReply(until: Deadline(seconds: timeout))
    }

    /// Closes the write half: the server reads the end of the stream, and
    /// replies still arrive.
    public func closeWrite() {
        guard !isClosed else { return }
        socket.shutdownWrite()
    }

    /// Closes the connection; later calls fail as closed without a reply.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        readEnded = true
        socket.close()
    }

    // MARK: Internals

    private func write(_ bytes: [UInt8], until deadline: Deadline, stopOnReply: Bool) throws(BlogClientError) {
        let repliesBefore = replies.count
        var offset = 0
        while offset < bytes.count {
            // The server will not read on once it closed or answered.
            guard !readEnded, !writeFailed else { return }
            if stopOnReply && replies.count > repliesBefore { return }
            guard let ready = socket.waitReadableOrWritable(until: deadline) else {
                throw .timedOut(.sending)
            }
            if ready.readable {
                // Take replies as they come, so neither side waits on a
                // full buffer, and an early answer is seen.
                absorb()
                continue
            }
            switch socket.sendSome(bytes[offset...]) {
            case .bytes(let count): offset += count
            case .wouldBlock: continue
            case .closed:
                writeFailed = true
                // A reply sent before the server went may still be here.
                absorb()
            }
        }
    }

    private func readReply(until deadline: Deadline) throws(BlogClientError) -> Reply {
        while true {
            if !replies.isEmpty {
                let body = replies.removeFirst()
                let text = String(decoding: body, as: UTF8.self)
                lastReplyText = text
                // A list of posts carries more than its head.
                if text.hasPrefix(Reply.postsListed.rawValue + ":"), Reply.parsePostListing(text) != nil {
                    return .postsListed
                }
                guard let reply = Reply(rawValue: text) else { throw .unexpectedReply(text) }
                return reply
            }
            if replyTooLong {
                throw .unexpectedReply(String(decoding: recent.prefix(64), as: UTF8.self) + "…")
            }
            if readEnded {
                let partial = recent.suffix(decoder.pendingByteCount)
                throw .closedWithoutReply(partial: String(decoding: partial, as: UTF8.self))
            }
            guard socket.waitReadable(until: deadline) else {
                throw .timedOut(.awaitingReply)
            }
            absorb()
        }
    }

    /// Reads whatever has arrived into the decoder and the reply queue.
    private func absorb() {
        while !readEnded {
            switch socket.receiveChunk() {
            case .bytes(let chunk):
                recent += chunk
                if recent.count > 2 * Self.maxReplyBytes { recent.removeFirst(recent.count - Self.maxReplyBytes - 8) }
                decoder.append(chunk)
                while let event = decoder.next() {
                    switch event {
                    case .message(let body): replies.append(body)
                    case .oversized: replyTooLong = true
                    }
                }
            case .wouldBlock:
                return
            case .closed:
                readEnded = true
            }
        }
    }
}

@available(*, unavailable, message: "a BlogConnection belongs to one thread at a time")
extension BlogConnection: Sendable {}
