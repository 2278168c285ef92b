import BlogSockets
import BlogWire

/// One way a client can open and end a connection. `blogbench churn`
/// cycles through all of them, because each ends the server's side of a
/// connection at a different point of its life.
enum ChurnKind: String, CaseIterable, Sendable {
    case resetAfterConnect = "reset-after-connect"
    case resetMidMessage = "reset-mid-message"
    case resetBeforeReply = "reset-before-reply"
    case halfClose = "half-close"
    case pipelinedGarbage = "pipelined-garbage"
    case emptyHalfClose = "empty-half-close"

    /// One line for `--help` and the report.
    var summary: String {
        switch self {
        case .resetAfterConnect: "connect, then reset (SO_LINGER 0, close)"
        case .resetMidMessage: "'login:churn' (no terminator), then reset"
        case .resetBeforeReply: "'login:churn:x[E];', then reset before the reply"
        case .halfClose: "'login:churn:x[E];', half-close, read the reply to EOF"
        case .pipelinedGarbage: "two logins + 'garbage', half-close, read to EOF"
        case .emptyHalfClose: "nothing sent, half-close, read to EOF (nothing due)"
        }
    }

    /// Opens a connection to `address`, ends it this kind's way, and judges
    /// what the server answered. Every step shares one deadline `timeout`
    /// seconds away, so a slow server shows up as slow, and a stuck one as
    /// a timeout rather than a hung thread.
    func exercise(_ address: SocketAddress, timeout: Double, keepAlive: Bool) -> ChurnOutcome {
        let deadline = Deadline(seconds: timeout)
        let socket: Socket
        do {
            socket = try Socket.connect(to: address, until: deadline)
        } catch {
            return .failed(ChurnFailure(error))
        }
        defer { socket.close() }
        do throws(SocketError) {
            switch self {
            case .resetAfterConnect:
                try socket.setResetOnClose()
                return .ok
            case .resetMidMessage, .resetBeforeReply:
                try socket.sendAll(message, until: deadline)
                try socket.setResetOnClose()
                return .ok
            case .halfClose, .pipelinedGarbage, .emptyHalfClose:
                if !message.isEmpty { try socket.sendAll(message, until: deadline) }
                socket.shutdownWrite()
                let received = try socket.receiveUntilClosed(until: deadline)
                return Self.judge(received, expecting: expectedReplies(keepAlive: keepAlive))
            }
        } catch {
            return .failed(ChurnFailure(error))
        }
    }

    /// The bytes this kind sends before it resets or half-closes.
    var message: [UInt8] {
        switch self {
        case .resetAfterConnect, .emptyHalfClose: []
        case .resetMidMessage: Array("login:churn".utf8)
        case .resetBeforeReply, .halfClose: Frame.encode("login", ["churn", "x"])
        case .pipelinedGarbage: Frame.encode("login", ["a", "x"]) + Frame.encode("login", ["b", "y"]) + Array("garbage".utf8)
        }
    }

    /// The replies due, in order, each a set of acceptable ones; empty when
    /// nothing is due. Kinds that reset read nothing, so nothing is due.
    ///
    /// A login for a name nobody registered gets `log:NA`; `log:OK` is
    /// accepted too, so a database that happens to hold `churn:x` does not
    /// turn into failures. With one message per connection the server
    /// answers the first message and drops the rest; with keep-alive it
    /// answers both, and the garbage the close cut off gets `err:ARGS`.
    func expectedReplies(keepAlive: Bool) -> [Set<Reply>] {
        let login: Set<Reply> = [.loginRefused, .loggedIn]
        switch self {
        case .resetAfterConnect, .resetMidMessage, .resetBeforeReply, .emptyHalfClose: return []
        case .halfClose: return [login]
        case .pipelinedGarbage: return keepAlive ? [login, login, [.badArguments]] : [login]
        }
    }

    /// Judges everything the server sent before it closed.
    ///
    /// `err:BUSY` as the last reply, after replies that were due, is busy,
    /// not a failure: the server refused more work and said so, which is
    /// what a limit is for.
    static func judge(_ received: [UInt8], expecting expected: [Set<Reply>]) -> ChurnOutcome {
        var decoder = FrameDecoder()
        decoder.append(received)
        var bodies: [[UInt8]] = []
        while let event = decoder.next() {
            guard case .message(let body) = event else {
                return .failed(.unexpectedReply(ReplyText.of(received)))
            }
            bodies.append(body)
        }
        if decoder.hasPartialMessage { return .failed(.incompleteReply) }
        let replies = bodies.map { Reply(rawValue: String(decoding: $0, as: UTF8.self)) }
        func matches(_ prefix: ArraySlice<Reply?>) -> Bool {
            prefix.count <= expected.count
                && zip(prefix, expected).allSatisfy { reply, accepted in reply.map(accepted.contains) ?? false }
        }
        if replies.last == .busy, matches(replies.dropLast()) { return .busy }
        if replies.isEmpty && !expected.isEmpty { return .failed(.noReply) }
        if replies.count == expected.count, matches(replies[...]) { return .ok }
        return .failed(.unexpectedReply(bodies.map(ReplyText.of).joined(separator: " + ")))
    }
}

/// How one connection went.
enum ChurnOutcome: Equatable, Sendable {
    case ok
    /// The server answered `err:BUSY`: a limit, counted apart from failures.
    case busy
    case failed(ChurnFailure)
}

/// Short printable text of reply bytes: one odd reply must not flood the report.
enum ReplyText {
    static func of(_ bytes: [UInt8]) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { return "<\(bytes.count) bytes, not UTF-8>" }
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
