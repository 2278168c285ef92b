#if canImport(Glibc)
import Glibc
#endif

/// A bound, listening, non-blocking TCP socket.
///
///     let listeners = try ListeningSocket.bind(host: "*", port: 0)
///     print(listeners[0].address.port)   // the port the system picked
public struct ListeningSocket: Sendable {
    public let socket: Socket
    /// The address it is bound to (with the real port when asked for 0).
    public let address: SocketAddress

    public var port: Int { address.port }

    /// Binds every address `host` stands for. `*` is every address: one
    /// dual-stack IPv6 socket, or IPv4 only where IPv6 is off. All or
    /// nothing: when one address fails, none stays bound.
    public static func bind(host: String, port: Int, backlog: Int32 = SOMAXCONN) throws(SocketError) -> [ListeningSocket] {
        if host == "*" {
            if let dual = try? open(.any(family: AF_INET6, port: port), dualStack: true, backlog: backlog) {
                return [dual]
            }
            return [try open(.any(family: AF_INET, port: port), dualStack: false, backlog: backlog)]
        }
        var sockets: [ListeningSocket] = []
        do {
            var nextPort = port
            for address in try AddressResolver.resolve(host: host, port: port, passive: true) {
                // With port 0 the first socket picks a port; the others share it.
                let socket = try open(address.with(port: nextPort), dualStack: false, backlog: backlog)
                nextPort = socket.port
                sockets.append(socket)
            }
        } catch {
            sockets.forEach { $0.socket.close() }
            throw error
        }
        return sockets
    }

    private static func open(_ address: SocketAddress, dualStack: Bool, backlog: Int32) throws(SocketError) -> ListeningSocket {
        let socket = try Socket.tcp(family: address.family)
        do {
            try socket.setReuseAddress()
            // Accepted sockets inherit it on Linux: one call here instead
            // of one per connection.
            try socket.setNoDelay()
            if address.family == AF_INET6 { try socket.setIPv6Only(!dualStack) }
            try socket.bind(to: address)
            try socket.listen(backlog: backlog)
            return ListeningSocket(socket: socket, address: try socket.localAddress())
        } catch {
            socket.close()
            throw error
        }
    }
}
