import NIOCore

/// The `host` setting as addresses to bind, in order of preference.
enum ListenHost {
    /// `*` is every address: IPv6's any address (dual-stack, as Linux sets
    /// it up by default), or IPv4's where the machine has no IPv6.
    /// `localhost` is 127.0.0.1; otherwise only an IPv4 or IPv6 literal, so
    /// that no name lookup blocks the start. `nil` for anything else.
    static func bindHosts(for host: String) -> [String]? {
        switch host {
        case "*": return ["::", "0.0.0.0"]
        case "localhost": return ["127.0.0.1"]
        default: return (try? SocketAddress(ipAddress: host, port: 0)) == nil ? nil : [host]
        }
    }
}
