import BlogSockets
#if canImport(Glibc)
import Glibc
#endif

/// Why a churn connection counts as failed.
enum ChurnFailure: Hashable, Sendable {
    /// The connection could not be made: refused, no local port or
    /// descriptor left, and so on.
    case connect(errno: Int32)
    /// The deadline passed while `call` waited: the server is stuck or very slow.
    case timeout(call: String)
    /// The server reset the connection (or it broke) where the client still
    /// had something to send or a reply to read.
    case reset(call: String)
    /// Any other failed socket call.
    case socket(call: String, errno: Int32)
    /// The server closed without a reply where one was due.
    case noReply
    /// Replies other than the ones due (wrong text or wrong number); the
    /// text is kept for the report.
    case unexpectedReply(String)
    /// The server closed in the middle of a reply.
    case incompleteReply

    init(_ error: SocketError) {
        switch error {
        case .timedOut(let call):
            self = .timeout(call: call)
        case .system(let call, let code, _) where code == ETIMEDOUT:
            self = .timeout(call: call)
        case .system("connect", let code, _), .system("socket", let code, _):
            self = .connect(errno: code)
        case .system(let call, let code, _) where code == ECONNRESET || code == EPIPE:
            self = .reset(call: call)
        case .system(let call, let code, _):
            self = .socket(call: call, errno: code)
        case .cannotResolve:
            // Addresses are resolved once, before any thread starts.
            self = .socket(call: "getaddrinfo", errno: 0)
        }
    }

    /// The key this failure is counted under: short and stable.
    var reason: String {
        switch self {
        case .connect(let code): "connect \(Self.errnoName(code))"
        case .timeout(let call): "timeout \(call)"
        case .reset(let call): "reset \(call)"
        case .socket(let call, let code): "\(call) \(Self.errnoName(code))"
        case .noReply: "no reply"
        case .unexpectedReply: "unexpected reply"
        case .incompleteReply: "incomplete reply"
        }
    }

    /// The symbolic name of the errno values a churn run can meet.
    static func errnoName(_ code: Int32) -> String {
        switch code {
        case ECONNREFUSED: "ECONNREFUSED"
        case ECONNRESET: "ECONNRESET"
        case ECONNABORTED: "ECONNABORTED"
        case EPIPE: "EPIPE"
        case ETIMEDOUT: "ETIMEDOUT"
        case EADDRNOTAVAIL: "EADDRNOTAVAIL"
        case EADDRINUSE: "EADDRINUSE"
        case EMFILE: "EMFILE"
        case ENFILE: "ENFILE"
        case ENOBUFS: "ENOBUFS"
        case ENETUNREACH: "ENETUNREACH"
        case EHOSTUNREACH: "EHOSTUNREACH"
        default: "errno \(code)"
        }
    }
}
