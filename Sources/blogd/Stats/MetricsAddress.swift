import BlogSockets

/// Where a running server's metrics are, from the same configuration it
/// was started with: `metrics_host` (a wildcard read as loopback) and
/// `metrics_port`.
///
///     let address = try MetricsAddress(settings)   // 127.0.0.1:9151
///     let text = try address.fetch()
struct MetricsAddress {
    static let path = "/metrics"

    let host: String
    let port: Int

    init(_ settings: BlogConfig) throws(StatsError) {
        guard let port = settings.metricsPort else { throw .metricsOff }
        guard port != 0 else { throw .anyPort }
        self.port = port
        switch settings.metricsHost {
        case "*", "0.0.0.0", "localhost": host = "127.0.0.1"
        case "::": host = "::1"
        default: host = settings.metricsHost
        }
    }

    var shown: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The body of `GET /metrics`, within `seconds`.
    func fetch(within seconds: Double = 5) throws(StatsError) -> String {
        let deadline = Deadline(seconds: seconds)
        let socket: Socket
        do {
            socket = try Socket.connect(to: SocketAddress(ip: host, port: port), until: deadline)
        } catch {
            throw .notRunning(address: shown, cause: error)
        }
        defer { socket.close() }
        var data: [UInt8] = []
        do throws(SocketError) {
            try socket.setBlocking(true)
            try socket.setTimeouts(seconds: seconds)
            let request = "GET \(Self.path) HTTP/1.1\r\nHost: \(shown)\r\nConnection: close\r\n\r\n"
            try socket.sendAll(Array(request.utf8), until: deadline)
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            // Until the server closes, as it does after each reply.
            while !deadline.hasPassed {
                let result = chunk.withUnsafeMutableBytes { raw in
                    Result { () throws(SocketError) in try socket.receive(into: raw) }
                }
                guard case .done(let count) = try result.get(), count > 0 else { break }
                data += chunk[0..<count]
            }
        } catch {
            throw .notRunning(address: shown, cause: error)
        }
        return try Self.body(of: String(decoding: data, as: UTF8.self), from: shown)
    }

    /// The body of a `200` reply; pure.
    static func body(of reply: String, from address: String) throws(StatsError) -> String {
        guard let split = reply.range(of: "\r\n\r\n") else { throw .badReply(address: address, status: nil) }
        let statusLine = reply[..<split.lowerBound].prefix { $0 != "\r" }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw .badReply(address: address, status: nil)
        }
        guard status == 200 else { throw .badReply(address: address, status: status) }
        return String(reply[split.upperBound...])
    }
}
