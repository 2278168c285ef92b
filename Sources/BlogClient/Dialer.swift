import BlogSockets
#if canImport(Glibc)
import Glibc
#endif

/// Connecting to a host by name: every address it resolves to, in turn,
/// with BlogSockets errors told apart the way `BlogClientError` does.
enum Dialer {
    /// A connected, non-blocking socket to the first address of `host`
    /// that accepts, and that address.
    ///
    /// Refused everywhere is `.connectionRefused`; any other failure is
    /// `.cannotConnect` with the last address's errno. A timeout ends the
    /// attempt at once: the deadline covers all the addresses.
    static func connect(host: String, port: Int, until deadline: Deadline) throws(BlogClientError) -> (socket: Socket, peer: SocketAddress) {
        let addresses: [SocketAddress]
        do {
            addresses = try AddressResolver.resolve(host: host, port: port)
        } catch {
            throw BlogClientError(error, host: host)
        }
        var refused = false
        var lastError = ECONNREFUSED
        for address in addresses {
            do {
                let socket = try Socket.connect(to: address, until: deadline)
                // One message, then a wait for the reply: Nagle would only delay it.
                try? socket.setNoDelay()
                return (socket, address)
            } catch {
                switch error {
                case .timedOut, .system("connect", ETIMEDOUT, _):
                    throw .timedOut(.connecting)
                case .system("connect", ECONNREFUSED, _):
                    refused = true
                case .system("socket", EAFNOSUPPORT, _):
                    // A family the kernel lacks (IPv6 off): try the next address.
                    lastError = EAFNOSUPPORT
                case .system("socket", let code, _):
                    throw .socketFailure(call: "socket", errno: code)
                case .system(_, let code, _):
                    lastError = code
                case .cannotResolve:
                    throw BlogClientError(error, host: host)
                }
            }
        }
        if refused { throw .connectionRefused(host: host, port: port) }
        throw .cannotConnect(host: host, port: port, errno: lastError)
    }
}

extension BlogClientError {
    /// The client's reading of a socket failure that is not about
    /// connecting (see `Dialer` for those).
    init(_ error: SocketError, host: String) {
        switch error {
        case .cannotResolve(_, _, let reason): self = .cannotResolve(host: host, reason: reason)
        case .system(let call, let code, _): self = .socketFailure(call: call, errno: code)
        case .timedOut: self = .timedOut(.connecting)
        }
    }
}
