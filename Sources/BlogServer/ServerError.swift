import BlogSockets

/// Why the server could not start.
public enum ServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Binding or listening failed (the socket error keeps the errno).
    case cannotListen(SocketError)
    /// The event loops could not be set up.
    case cannotStartLoop(SocketError)

    public var description: String {
        switch self {
        case .cannotListen(let error): "\(error)"
        case .cannotStartLoop(let error): "event loop: \(error)"
        }
    }
}
