import BlogSockets
import Foundation

/// A blog's actor key as blogd serves it: `GET /ap/NAME` for
/// `application/activity+json`, its `publicKey`'s id and PEM. Asking
/// makes the key (blogd makes a blog's pair on first need), and the farm
/// checks signatures with what a remote server would fetch.
enum FanoutActorKey {
    static func fetch(blog: String, http: Route, timeout: Double) throws(BenchFailure) -> (id: String, pem: String) {
        let request = "GET /ap/\(blog) HTTP/1.1\r\nHost: 127.0.0.1:\(http.server.port)\r\n"
            + "Accept: application/activity+json\r\nConnection: close\r\n\r\n"
        let deadline = Deadline(seconds: timeout)
        let received: [UInt8]
        do throws(SocketError) {
            let socket = try http.connect(until: deadline)
            defer { socket.close() }
            try socket.sendAll(Array(request.utf8), until: deadline)
            received = try socket.receiveUntilClosed(until: deadline, limit: 1 << 20)
        } catch {
            throw BenchFailure(message: "GET /ap/\(blog): \(ChurnFailure(error).reason)")
        }
        guard let split = received.firstRange(of: Array("\r\n\r\n".utf8)) else {
            throw BenchFailure(message: "GET /ap/\(blog): no answer")
        }
        let head = String(decoding: received[..<split.lowerBound], as: UTF8.self)
        var body = Array(received[split.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { body = unchunked(body) }
        guard head.hasPrefix("HTTP/1.1 200"),
              let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let key = json["publicKey"] as? [String: Any], let id = key["id"] as? String,
              let pem = key["publicKeyPem"] as? String else {
            throw BenchFailure(message: "GET /ap/\(blog): no actor with a key: \(head.prefix(200))")
        }
        return (id, pem)
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
