import BlogSockets
import Foundation

/// One `GET` of the fan-out bench to blogd (its actor, its `/metrics`),
/// on a connection of its own that the answer closes.
enum FanoutHTTP {
    /// The head and the body (unchunked) of the answer to `GET path`.
    static func get(_ path: String, accept: String, on route: Route,
                    timeout: Double) throws(BenchFailure) -> (head: String, body: [UInt8]) {
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(route.server.port)\r\n"
            + "Accept: \(accept)\r\nConnection: close\r\n\r\n"
        let deadline = Deadline(seconds: timeout)
        let received: [UInt8]
        do throws(SocketError) {
            let socket = try route.connect(until: deadline)
            defer { socket.close() }
            try socket.sendAll(Array(request.utf8), until: deadline)
            received = try socket.receiveUntilClosed(until: deadline, limit: 1 << 22)
        } catch {
            throw BenchFailure(message: "GET \(path): \(ChurnFailure(error).reason)")
        }
        guard let split = received.firstRange(of: Array("\r\n\r\n".utf8)) else {
            throw BenchFailure(message: "GET \(path): no answer")
        }
        let head = String(decoding: received[..<split.lowerBound], as: UTF8.self)
        var body = Array(received[split.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { body = unchunked(body) }
        return (head, body)
    }

    /// A chunked body's data.
    static func unchunked(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var rest = bytes[...]
        while let line = rest.firstRange(of: Array("\r\n".utf8)) {
            let sizeText = String(decoding: rest[..<line.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0,
                  line.upperBound + size <= rest.endIndex else { break }
            out += rest[line.upperBound..<line.upperBound + size]
            rest = rest[(line.upperBound + size)...].dropFirst(2)
        }
        return out
    }
}
