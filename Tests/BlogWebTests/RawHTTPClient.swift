import BlogSockets
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A response read off the wire.
struct RawResponse {
    var status: Int
    /// Field names lowercased.
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// How a connection ended, seen from the client.
enum ConnectionEnd: Equatable {
    /// The server closed it (FIN).
    case closed
    /// The server reset it (RST), as Linux does when it closes with input
    /// unread.
    case reset
}

enum RawClientError: Error {
    case connect(Int32)
    /// The guard time passed with no byte. `received` is what came
    /// before; `sockets`, the kernel's view of every socket on the
    /// server's port then (is it accepted? what waits in its queues?).
    case timedOut(received: String, sockets: String)
    case malformed(String)
    case closedEarly
    case reset
}

/// A raw HTTP/1.1 connection on a blocking socket: requests exactly as
/// given (no client normalisation of paths), every receive bounded by
/// `guardSeconds`, so a broken server fails a test instead of hanging it.
final class RawHTTPConnection: @unchecked Sendable {
    let socket: Socket
    private let port: Int
    private var buffer: [UInt8] = []
    private let closed = Atomic<Bool>(false)

    /// With `source`, the connection comes from that local address (any
    /// of 127/8 on Linux), as another client's would.
    init(port: Int, host: String = "127.0.0.1", source: String? = nil, guardSeconds: Double = 60,
         receiveBuffer: Int32? = nil) throws {
        let address = try SocketAddress(ip: host, port: port)
        let socket = try Socket.tcp(family: address.family)
        if let receiveBuffer { try socket.setReceiveBuffer(receiveBuffer) }
        do {
            if let source { try socket.bind(to: SocketAddress(ip: source, port: 0)) }
            try socket.setBlocking(true)
            try socket.setTimeouts(seconds: guardSeconds)
            try socket.connect(to: address, until: Deadline(seconds: guardSeconds))
        } catch {
            socket.close()
            throw RawClientError.connect(error.errno ?? ETIMEDOUT)
        }
        self.socket = socket
        self.port = port
    }

    /// Sends as much of `bytes` as the server takes; returns how much went
    /// out before the server closed (all of it normally).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Int {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(SocketError) in try socket.send(UnsafeRawBufferPointer(rebasing: raw[sent...])) }
            }
            guard case .success(.done(let count)) = result, count > 0 else { break }
            sent += count
        }
        return sent
    }

    @discardableResult
    func send(_ text: String) -> Int { send(Array(text.utf8)) }

    /// Sends one request (keep-alive unless `close`) and reads its response.
    /// `fields` are extra header lines (`"If-None-Match: \"x\""`).
    func request(_ path: String, method: String = "GET", close: Bool = false, fields: [String] = []) throws -> RawResponse {
        let extra = fields.map { $0 + "\r\n" }.joined()
        send("\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n\(extra)\(close ? "Connection: close\r\n" : "")\r\n")
        return try readResponse(bodyExpected: method != "HEAD")
    }

    /// Reads one response: the head, then `Content-Length` bytes of body.
    func readResponse(bodyExpected: Bool = true) throws -> RawResponse {
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.indices.dropLast(3).first { buffer[$0..<$0 + 4].elementsEqual(separator) }
            if headEnd == nil { guard try receiveMore() else { throw RawClientError.closedEarly } }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeFirst(headEnd! + 4)
        let statusLine = head[0].split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawClientError.malformed(head[0]) }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        let length = bodyExpected ? Int(headers["content-length"] ?? "0") ?? 0 : 0
        while buffer.count < length {
            guard try receiveMore() else { throw RawClientError.closedEarly }
        }
        let body = Array(buffer.prefix(length))
        buffer.removeFirst(length)
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// Reads until the server ends the connection; returns how, and the
    /// bytes that came first.
    func readUntilEnd() throws -> (end: ConnectionEnd, bytes: [UInt8]) {
        do {
            while try receiveMore() {}
            defer { buffer.removeAll() }
            return (.closed, buffer)
        } catch RawClientError.reset {
            defer { buffer.removeAll() }
            return (.reset, buffer)
        }
    }

    /// Waits for some bytes and takes them off the buffer; returns how
    /// many (0 at the end of the stream).
    func receiveSome() throws -> Int {
        guard buffer.isEmpty else { defer { buffer.removeAll() }; return buffer.count }
        guard try receiveMore() else { return 0 }
        defer { buffer.removeAll() }
        return buffer.count
    }

    /// True once the server has ended the connection (a read would give
    /// EOF or a reset); false while it is open and has sent nothing.
    func hasEnded() -> Bool {
        guard let events = socket.wait(for: Int16(POLLIN), until: Deadline(seconds: 0)) else { return false }
        guard events & Int16(POLLIN | POLLHUP | POLLERR) != 0 else { return false }
        var byte: UInt8 = 0
        let count = recv(socket.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }

    /// Whether a response (or the end) arrives within `seconds`. Only for
    /// checking that nothing comes: a slow machine can make it say false
    /// when something was on its way, never true when nothing was.
    func somethingArrives(within seconds: Double) -> Bool {
        socket.wait(for: Int16(POLLIN), until: Deadline(seconds: seconds)) != nil
    }

    /// Closes the socket once: a second close could hit another test's
    /// socket that took the same number meanwhile.
    func close() {
        if !closed.exchange(true, ordering: .relaxed) { socket.close() }
    }

    private func timedOut() -> RawClientError {
        .timedOut(received: String(decoding: buffer, as: UTF8.self), sockets: Self.kernelView(ofPort: port))
    }

    /// `ss` on every TCP socket to or from `port`, with its owner and
    /// queues.
    private static func kernelView(ofPort port: Int) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ss -tanpi '( sport = :\(port) or dport = :\(port) )' 2>&1"]
        let output = Pipe()
        process.standardOutput = output
        do { try process.run() } catch { return "(no ss: \(error))" }
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: text, as: UTF8.self)
    }

    /// One receive into the buffer: false at the end of the stream.
    private func receiveMore() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let result = chunk.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in try socket.receive(into: raw) }
        }
        switch result {
        case .success(.done(let count)):
            buffer += chunk[0..<count]
            return count > 0
        case .success(.wouldBlock): throw timedOut()
        case .failure(let error):
            if error.errno == ECONNRESET { throw RawClientError.reset }
            if error.errno == EAGAIN { throw timedOut() }
            throw RawClientError.malformed("\(error)")
        }
    }
}

extension RawHTTPConnection {
    /// A connection from `source` that has been served `path` once and
    /// stays open (idle), holding its place.
    static func held(port: Int, source: String, path: String = "/alice.html") throws -> RawHTTPConnection {
        let connection = try RawHTTPConnection(port: port, source: source)
        _ = try connection.request(path)
        return connection
    }

    /// One request from `source` on a connection of its own, closed after.
    static func once(port: Int, source: String, path: String = "/alice.html") throws -> RawResponse {
        let connection = try RawHTTPConnection(port: port, source: source)
        defer { connection.close() }
        return try connection.request(path)
    }

    /// What a request from `source` gets back before the connection ends:
    /// nothing when the server closes it at once.
    static func refusal(port: Int, source: String, path: String = "/alice.html") throws -> [UInt8] {
        let connection = try RawHTTPConnection(port: port, source: source)
        defer { connection.close() }
        connection.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n")
        return try connection.readUntilEnd().bytes
    }
}

/// Runs blocking client code on a thread of its own, so that tests waiting
/// on sockets never hold Swift's cooperative threads (which the code under
/// test may need to make progress).
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
