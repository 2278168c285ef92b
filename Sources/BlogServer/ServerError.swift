import BlogSockets

/// Why the server could not start.
public enum ServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Binding or listening failed (the socket error keeps the errno).
    case cannotListen(SocketError)
    /// The event loops could not be set up.
    case cannotStartLoop(SocketError)
    /// An entry of `trustedProxies` is not an address or network.
    case invalidTrustedProxy(TrustedProxies.ParseError)

    public var description: String {
        switch self {
        case .cannotListen(let error): "\(error)"
        case .cannotStartLoop(let error): "event loop: \(error)"
        case .invalidTrustedProxy(let error): "trusted_proxies: \(error)"
        }
    }
}
