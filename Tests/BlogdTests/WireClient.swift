import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Sends one message per connection, as the original client does, and
/// returns everything the server sent before closing.
func exchange(_ message: String, port: Int, host: String = "127.0.0.1") throws -> String {
    let connection = try WireConnection(port: port, host: host)
    defer { connection.close() }
    try connection.send(message)
    return try connection.readToEnd()
}

/// A blocking TCP connection with a receive timeout, for tests.
struct WireConnection {
    enum Failure: Error { case connect(Int32), send(Int32), receive(Int32) }

    let fd: Int32

    init(port: Int, host: String = "127.0.0.1", timeout: Int = 20) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure.connect(code)
        }
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw Failure.send(errno) }
    }

    /// Reads up to and including the next `[E];`.
    func readReply() throws -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while !bytes.reversed().starts(with: Array("[E];".utf8).reversed()) {
            let n = recv(fd, &byte, 1, 0)
            guard n == 1 else { throw Failure.receive(n == 0 ? 0 : errno) }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func readToEnd() throws -> String {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n == 0 { break }
            guard n > 0 else { throw Failure.receive(errno) }
            data += chunk[0..<n]
        }
        return String(decoding: data, as: UTF8.self)
    }

    func close() { Glibc.close(fd) }
}

extension WireConnection {
    /// Sends `bytes` in chunks until all are sent or the peer stops taking
    /// them; returns how many bytes went out.
    @discardableResult
    func sendAll(_ bytes: [UInt8], chunk: Int = 64 * 1024) -> Int {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + sent, min(chunk, bytes.count - sent), Int32(MSG_NOSIGNAL))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            sent += n
        }
        return sent
    }

    /// Closes with a reset (SO_LINGER 0), as a client that crashes or
    /// loses its network does.
    func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        Glibc.close(fd)
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
