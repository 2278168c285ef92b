import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain listening TCP socket on 127.0.0.1 (or ::1) at a free port.
/// It accepts nothing by itself.
final class RawListener: @unchecked Sendable {
    let fd: Int32
    let port: Int
    private var isClosed = false

    init(ipv6: Bool = false, backlog: Int32 = 16) {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        precondition(fd >= 0, "socket: \(errno)")
        var storage = sockaddr_storage()
        let length: socklen_t
        if ipv6 {
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_family = sa_family_t(AF_INET6)
                    $0.pointee.sin6_addr = in6addr_loopback
                }
            }
        } else {
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_family = sa_family_t(AF_INET)
                    $0.pointee.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
                }
            }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        precondition(bound == 0, "bind: \(errno)")
        precondition(listen(fd, backlog) == 0, "listen: \(errno)")
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &localLength) }
        }
        self.port = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }
}

/// A port on 127.0.0.1 where nothing listens: bound, read and closed.
func unusedPort() -> Int {
    RawListener().port
}

/// A fake server for one connection, on a thread of its own: accepts,
/// reads up to the end of one message, sends `reply` as given (maybe not
/// a valid reply, maybe nothing) and closes.
final class ScriptedServer: @unchecked Sendable {
    private let listener = RawListener()
    private let done = DispatchSemaphore(value: 0)
    /// What the client sent, once `finish()` returned.
    private(set) var received: [UInt8] = []

    var port: Int { listener.port }

    init(reply: String) {
        let fd = listener.fd
        let reply = Array(reply.utf8)
        let thread = Thread { [self] in
            defer { done.signal() }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 5000) == 1 else { return }
            let peer = accept(fd, nil, nil)
            guard peer >= 0 else { return }
            defer { Glibc.close(peer) }
            var wait = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(peer, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            var chunk = [UInt8](repeating: 0, count: 4096)
            var got: [UInt8] = []
            while !got.suffix(4).elementsEqual(Array("[E];".utf8)) {
                let n = chunk.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { break }
                got += chunk[0..<n]
            }
            received = got
            if !reply.isEmpty {
                _ = reply.withUnsafeBytes { send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
        }
        thread.start()
    }

    private var isFinished = false

    /// Waits for the thread to finish (at most 10 s), then closes. Only
    /// the first call waits.
    func finish() {
        guard !isFinished else { return }
        isFinished = true
        _ = done.wait(timeout: .now() + 10)
        listener.close()
    }
}

/// Seconds `body` took.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = Date()
    try body()
    return Date().timeIntervalSince(start)
}
