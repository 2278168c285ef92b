import BlogSockets
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Sends one message per connection, as the original client does, and
/// returns everything the server sent before closing.
func exchange(_ message: String, port: Int, host: String = "127.0.0.1", from source: String? = nil) throws -> String {
    let connection = try WireConnection(port: port, host: host, from: source)
    defer { connection.close() }
    try connection.send(message)
    return try connection.readToEnd()
}

/// A blocking TCP connection with send and receive timeouts, for tests.
struct WireConnection {
    enum Failure: Error { case connect(Int32), send(Int32), receive(Int32) }

    let socket: Socket
    private let timeout: Double

    /// The descriptor, for tests that make raw calls on it.
    var fd: Int32 { socket.fd }

    /// Connects to `host` (an IPv4 or IPv6 literal) at `port` within
    /// `timeout` seconds, which then bounds every send and receive.
    /// With `source`, the connection comes from that local address (any of
    /// 127/8 on Linux), as another client would.
    init(port: Int, host: String = "127.0.0.1", from source: String? = nil, timeout: Int = 60) throws {
        self.timeout = Double(timeout)
        let address = try SocketAddress(ip: host, port: port)
        let local = try source.map { try SocketAddress(ip: $0, port: 0) }
        do {
            socket = try Socket.connect(to: address, from: local, until: Deadline(seconds: self.timeout))
        } catch {
            throw Failure.connect(error.errno ?? ETIMEDOUT)
        }
        do {
            try socket.setBlocking(true)
            try socket.setTimeouts(seconds: self.timeout)
        } catch {
            socket.close()
            throw Failure.connect(error.errno ?? ETIMEDOUT)
        }
    }

    func send(_ text: String) throws {
        do {
            try socket.sendAll(Array(text.utf8), until: Deadline(seconds: timeout))
        } catch {
            throw Failure.send(error.errno ?? EAGAIN)
        }
    }

    /// Reads up to and including the next `[E];`, a byte at a time so
    /// nothing after it is taken.
    func readReply() throws -> String {
        let terminator = Array("[E];".utf8)
        var bytes: [UInt8] = []
        var byte = [UInt8](repeating: 0, count: 1)
        while !bytes.suffix(terminator.count).elementsEqual(terminator) {
            guard try receive(into: &byte) == 1 else { throw Failure.receive(0) }
            bytes.append(byte[0])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func readToEnd() throws -> String {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try receive(into: &chunk)
            if count == 0 { break }
            data += chunk[0..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }

    func close() { socket.close() }

    /// One receive: the byte count, 0 at the end of the stream.
    private func receive(into chunk: inout [UInt8]) throws -> Int {
        let result = chunk.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in try socket.receive(into: raw) }
        }
        switch result {
        case .success(.done(let count)): return count
        // A blocking socket says EAGAIN when SO_RCVTIMEO expires.
        case .success(.wouldBlock): throw Failure.receive(EAGAIN)
        case .failure(let error): throw Failure.receive(error.errno ?? EIO)
        }
    }
}

extension WireConnection {
    /// Sends `bytes` in chunks until all are sent or the peer stops taking
    /// them; returns how many bytes went out.
    @discardableResult
    func sendAll(_ bytes: [UInt8], chunk: Int = 64 * 1024) -> Int {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(SocketError) in
                    try socket.send(UnsafeRawBufferPointer(rebasing: raw[sent..<min(bytes.count, sent + chunk)]))
                }
            }
            guard case .success(.done(let count)) = result, count > 0 else { break }
            sent += count
        }
        return sent
    }

    /// Closes with a reset (SO_LINGER 0), as a client that crashes or
    /// loses its network does.
    func reset() {
        try? socket.setResetOnClose()
        socket.close()
    }
}

/// Raises this process's soft limit on open files to the hard limit, so a
/// test can hold many connections; returns the new soft limit.
@discardableResult
func raiseOpenFileLimit() -> UInt64 {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
    if limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return UInt64(limit.rlim_cur)
}
