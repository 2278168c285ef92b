import BlogSockets
#if canImport(Glibc)
import Glibc
#endif

/// A connection-level failure: no reply came, for a reason in the socket.
///
/// Replies the bench did not expect are not errors here; they are counted
/// apart, by their text.
enum WireError: Error, Equatable, Sendable {
    case refused
    case reset
    case timeout
    /// The server closed before a complete reply.
    case closedBeforeReply
    /// The reply went past the decoder's size limit.
    case oversizedReply
    /// No local port or file descriptor left (the client machine's limit).
    case localResources(errno: Int32)
    case unreachable
    case other(call: String, errno: Int32)

    /// Short stable name, the key in the report's error counts.
    var kind: String {
        switch self {
        case .refused: "refused"
        case .reset: "reset"
        case .timeout: "timeout"
        case .closedBeforeReply: "closed-before-reply"
        case .oversizedReply: "oversized-reply"
        case .localResources(let code): "local-\(Self.errnoName(code))"
        case .unreachable: "unreachable"
        case .other(let call, let code): "\(call)-\(Self.errnoName(code))"
        }
    }

    /// The error for a failed socket call's errno.
    static func from(errno code: Int32, call: String) -> WireError {
        switch code {
        case ECONNREFUSED: .refused
        case ECONNRESET, EPIPE, ECONNABORTED: .reset
        // SO_RCVTIMEO/SO_SNDTIMEO expiry shows as EAGAIN (a connect past
        // its deadline is SocketError.timedOut instead).
        case EAGAIN, EWOULDBLOCK, ETIMEDOUT: .timeout
        case ENETUNREACH, EHOSTUNREACH: .unreachable
        case EADDRNOTAVAIL, EMFILE, ENFILE, ENOBUFS: .localResources(errno: code)
        default: .other(call: call, errno: code)
        }
    }

    /// The error for a failed BlogSockets call.
    init(_ error: SocketError) {
        switch error {
        case .system(let call, let code, _): self = .from(errno: code, call: call)
        case .timedOut: self = .timeout
        // Connections are made to addresses resolved beforehand, so this
        // does not happen; a name that resolves nowhere is unreachable.
        case .cannotResolve: self = .unreachable
        }
    }

    private static func errnoName(_ code: Int32) -> String {
        switch code {
        case EADDRNOTAVAIL: "EADDRNOTAVAIL"
        case EMFILE: "EMFILE"
        case ENFILE: "ENFILE"
        case ENOBUFS: "ENOBUFS"
        default: "errno\(code)"
        }
    }

    /// Readable text for failure messages.
    var message: String {
        switch self {
        case .refused: "connection refused"
        case .reset: "connection reset"
        case .timeout: "timed out"
        case .closedBeforeReply: "the server closed the connection before a complete reply"
        case .oversizedReply: "reply too large"
        case .unreachable: "network unreachable"
        case .localResources(let code), .other(_, let code): String(cString: strerror(code))
        }
    }
}
