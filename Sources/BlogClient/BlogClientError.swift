#if canImport(Glibc)
import Glibc
#endif

/// Why a request got no reply, or a reply that makes no sense.
///
/// Replies the protocol defines, refusals and server errors included, are
/// not errors: they come back as `BlogReply`.
public enum BlogClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Where a timeout struck.
    public enum Stage: String, Equatable, Sendable {
        case connecting = "connecting"
        case sending = "sending"
        case awaitingReply = "waiting for the reply"
    }

    /// getaddrinfo found no address for the host.
    case cannotResolve(host: String, reason: String)
    /// Nothing listens on that port (every address answered with a reset).
    case connectionRefused(host: String, port: Int)
    /// Connecting failed otherwise (unreachable network or host, ...).
    case cannotConnect(host: String, port: Int, errno: Int32)
    /// The timeout passed while connecting, sending or awaiting the reply.
    case timedOut(Stage)
    /// The server closed (or reset) the connection before a whole reply;
    /// `partial` is whatever part of one arrived.
    case closedWithoutReply(partial: String)
    /// The server sent something that is not a reply to the request.
    case unexpectedReply(String)
    /// A request the client will not send: it breaks the field rules.
    case invalidArgument(InvalidArgument)
    /// A socket call failed for another reason (out of descriptors, ...).
    case socketFailure(call: String, errno: Int32)

    /// Whether the server could not be reached or did not answer: the
    /// request may or may not have been carried out.
    public var isConnectionFailure: Bool {
        switch self {
        case .cannotResolve, .connectionRefused, .cannotConnect, .timedOut, .closedWithoutReply, .socketFailure:
            true
        case .unexpectedReply, .invalidArgument:
            false
        }
    }

    public var description: String {
        switch self {
        case .cannotResolve(let host, let reason): "cannot resolve \(host): \(reason)"
        case .connectionRefused(let host, let port): "cannot connect to \(Self.endpoint(host, port)): connection refused"
        case .cannotConnect(let host, let port, let code):
            "cannot connect to \(Self.endpoint(host, port)): \(String(cString: strerror(code)))"
        case .timedOut(let stage): "timed out \(stage.rawValue)"
        case .closedWithoutReply(let partial):
            partial.isEmpty
                ? "the server closed the connection without a reply"
                : "the server closed the connection in the middle of a reply: \(partial.debugDescription)"
        case .unexpectedReply(let text): "unexpected reply \(text.debugDescription)"
        case .invalidArgument(let problem): problem.description
        case .socketFailure(let call, let code): "\(call): \(String(cString: strerror(code)))"
        }
    }

    private static func endpoint(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
