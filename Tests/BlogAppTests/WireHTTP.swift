import BlogSockets
import Foundation

/// A response read off the wire.
struct WireResponse {
    var status: Int
    /// Field names lowercased.
    var headers: [String: String]
    var body: [UInt8]
    /// Every `Set-Cookie` line, in order (`headers` keeps the last one).
    var setCookies: [String] = []

    var text: String { String(decoding: body, as: UTF8.self) }
}

enum WireError: Error {
    case closedEarly(received: String)
    case malformed(String)
}

/// A raw HTTP/1.1 connection on a blocking socket, for requests no HTTP
/// client would send (a length declared and no body, a body past its
/// limit); every wait bounded, so a broken server fails a test instead of
/// hanging it. The bound is an hour: on a loaded 2-core machine a handler
/// that waits for the cooperative pool (an actor document fetched, say)
/// has taken minutes, and 60 s failed a test that was right.
final class WireHTTP: @unchecked Sendable {
    private let socket: Socket
    private var buffer: [UInt8] = []
    /// Seconds any one wait may take.
    static let patience: Double = 3600


    init(port: Int) throws {
        socket = try Socket.connect(to: try SocketAddress(ip: "127.0.0.1", port: port), until: Deadline(seconds: Self.patience))
        try socket.setBlocking(true)
        try socket.setTimeouts(seconds: Self.patience)
    }

    deinit { socket.close() }

    /// Sends all of `bytes`; false when the server closed first.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        (try? socket.sendAll(bytes, until: Deadline(seconds: Self.patience))) != nil
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads one response: the head, then `Content-Length` bytes of body.
    func readResponse() throws -> WireResponse {
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.indices.dropLast(3).first { buffer[$0..<$0 + 4].elementsEqual(separator) }
            if headEnd == nil { try receiveMore() }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeFirst(headEnd! + 4)
        let statusLine = head[0].split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw WireError.malformed(head[0]) }
        var headers: [String: String] = [:]
        var setCookies: [String] = []
        for line in head.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0].lowercased() == "set-cookie" {
                setCookies.append(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count < length { try receiveMore() }
        defer { buffer.removeFirst(length) }
        return WireResponse(status: status, headers: headers, body: Array(buffer.prefix(length)), setCookies: setCookies)
    }

    private func receiveMore() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let result = chunk.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in try socket.receive(into: raw) }
        }
        guard case .success(.done(let count)) = result, count > 0 else {
            throw WireError.closedEarly(received: String(decoding: buffer, as: UTF8.self))
        }
        buffer += chunk[0..<count]
    }
}

/// Runs blocking socket code on a thread of its own, off Swift's
/// cooperative pool (which the server under test may need).
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// A `multipart/form-data` body of text fields, then files.
func multipartBody(boundary: String, fields: [(String, String)], files: [(name: String, type: String, bytes: [UInt8])]) -> [UInt8] {
    var body: [UInt8] = []
    for (name, value) in fields {
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
    }
    for file in files {
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"photo.jpg\"\r\nContent-Type: \(file.type)\r\n\r\n".utf8)
        body += file.bytes
        body += Array("\r\n".utf8)
    }
    body += Array("--\(boundary)--\r\n".utf8)
    return body
}
