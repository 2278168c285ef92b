import BlogSockets
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A reply read off the wire.
struct HTTPReply {
    var status: Int
    var headers: [String: String]
    var body: String
}

/// Sends one raw HTTP/1.1 request (the path exactly as given, no client
/// normalisation) and reads the reply until the server closes.
func httpRequest(port: Int, method: String = "GET", path: String) throws -> HTTPReply {
    let socket: Socket
    do {
        socket = try Socket.connect(to: try SocketAddress(ip: "127.0.0.1", port: port), until: Deadline(seconds: 10))
    } catch {
        throw HTTPFailure.connect(error.errno ?? ETIMEDOUT)
    }
    defer { socket.close() }
    try socket.setBlocking(true)
    try socket.setTimeouts(seconds: 10)
    let request = Array("\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
    try? socket.sendAll(request, until: Deadline(seconds: 10))
    var data: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let received = chunk.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in try socket.receive(into: raw) }
        }
        // Until the server closes; a timeout or an error ends the reply too.
        guard case .success(.done(let count)) = received, count > 0 else { break }
        data += chunk[0..<count]
    }
    let text = String(decoding: data, as: UTF8.self)
    guard let split = text.range(of: "\r\n\r\n") else { throw HTTPFailure.malformed(text) }
    let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
    guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ")[1]) else {
        throw HTTPFailure.malformed(text)
    }
    var headers: [String: String] = [:]
    for line in head.dropFirst() {
        let parts = line.split(separator: ":", maxSplits: 1)
        if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
    }
    return HTTPReply(status: status, headers: headers, body: String(text[split.upperBound...]))
}

enum HTTPFailure: Error {
    case connect(Int32)
    case malformed(String)
}
