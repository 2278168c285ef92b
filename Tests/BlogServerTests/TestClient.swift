import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How a read from the server ended.
enum StreamEnd: Equatable, CustomStringConvertible {
    /// recv returned 0: the server closed (or half-closed) cleanly.
    case eof
    /// ECONNRESET: the server reset the connection.
    case reset
    /// Nothing arrived within the receive timeout.
    case timedOut
    case error(Int32)
    /// `expectCleanEOF` found more bytes before the end.
    case unexpectedBytes(String)

    var description: String {
        switch self {
        case .unexpectedBytes(let text): "unexpected bytes \(text.debugDescription)"
        case .eof: "EOF"
        case .reset: "reset"
        case .timedOut: "timed out"
        case .error(let code): "error \(code) (\(String(cString: strerror(code))))"
        }
    }
}

enum ClientError: Error, CustomStringConvertible {
    case resolve(String)
    case connect(Int32)
    case send(Int32)
    /// The stream ended before a whole reply arrived; `partial` is what came.
    case noReply(end: StreamEnd, partial: String)

    var description: String {
        switch self {
        case .resolve(let host): "cannot parse address \(host)"
        case .connect(let code): "connect: \(String(cString: strerror(code)))"
        case .send(let code): "send: \(String(cString: strerror(code)))"
        case .noReply(let end, let partial): "no reply (\(end)) after \(partial.debugDescription)"
        }
    }
}

/// A tiny blocking TCP client for the tests. Every receive has a timeout,
/// so a broken server fails a test instead of hanging it.
final class TestClient: @unchecked Sendable {
    static let terminator = Array("[E];".utf8)

    let fd: Int32
    /// Bytes received but not yet handed out by `readReply`.
    private var buffer: [UInt8] = []
    private var closed = false

    /// Connects to `host` (an IPv4 or IPv6 literal) at `port`; a small
    /// `receiveBuffer` makes the server's writes block sooner. With
    /// `source` (an IPv4 literal such as `127.0.0.2`), the socket is bound
    /// to that local address first, so the server sees another peer.
    init(port: Int, host: String = "127.0.0.1", timeout: Double = 10, receiveBuffer: Int32? = nil,
         source: String? = nil) throws(ClientError) {
        var storage = sockaddr_storage()
        let family: Int32
        let length: socklen_t
        if host.contains(":") {
            family = AF_INET6
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            let ok = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    address.pointee.sin6_family = sa_family_t(AF_INET6)
                    address.pointee.sin6_port = UInt16(port).bigEndian
                    return inet_pton(AF_INET6, host, &address.pointee.sin6_addr) == 1
                }
            }
            guard ok else { throw .resolve(host) }
        } else {
            family = AF_INET
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ok = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    address.pointee.sin_family = sa_family_t(AF_INET)
                    address.pointee.sin_port = UInt16(port).bigEndian
                    return inet_pton(AF_INET, host, &address.pointee.sin_addr) == 1
                }
            }
            guard ok else { throw .resolve(host) }
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .connect(errno) }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        // Small writes leave at once, so "one byte at a time" really is.
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            guard family == AF_INET, inet_pton(AF_INET, source, &local.sin_addr) == 1 else {
                Glibc.close(fd)
                throw .resolve(source)
            }
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(fd)
                throw .connect(code)
            }
        }
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard status == 0 else {
            let code = errno
            Glibc.close(fd)
            throw .connect(code)
        }
        self.fd = fd
    }

    deinit { close() }

    // MARK: Sending

    func send(_ text: String) throws(ClientError) {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws(ClientError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .send(errno)
            }
            offset += n
        }
    }

    /// Sends one byte per write, pausing between them.
    func sendSlowly(_ text: String, pause: Double = 0.003) throws(ClientError) {
        for byte in Array(text.utf8) {
            try send([byte])
            Thread.sleep(forTimeInterval: pause)
        }
    }

    /// Closes the write half: the server reads EOF, we can still read.
    func halfClose() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes with a reset (SO_LINGER 0) instead of a FIN.
    func reset() {
        guard !closed else { return }
        var hard = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, socklen_t(MemoryLayout<linger>.size))
        close()
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    // MARK: Receiving

    /// One recv into the buffer: the number of bytes, or how the stream ended.
    private func receiveMore() -> StreamEnd? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer += chunk[0..<n]
                return nil
            }
            if n == 0 { return .eof }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .timedOut
            case ECONNRESET: return .reset
            default: return .error(errno)
            }
        }
    }

    /// Reads exactly one reply, up to and including `[E];`; later bytes stay
    /// buffered for the next call.
    func readReply() throws(ClientError) -> String {
        while true {
            if let end = Self.find(Self.terminator, in: buffer) {
                let reply = Array(buffer[..<end])
                buffer.removeFirst(end)
                return String(decoding: reply, as: UTF8.self)
            }
            if let end = receiveMore() {
                throw .noReply(end: end, partial: String(decoding: buffer, as: UTF8.self))
            }
        }
    }

    /// Reads everything until the stream ends; returns it with how it ended.
    func readToEnd() -> (text: String, end: StreamEnd) {
        while true {
            if let end = receiveMore() {
                let text = String(decoding: buffer, as: UTF8.self)
                buffer = []
                return (text, end)
            }
        }
    }

    /// Whether any byte or the end of the stream arrives within `seconds`
    /// (without consuming anything).
    func hasInput(within seconds: Double) -> Bool {
        if !buffer.isEmpty { return true }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, Int32(seconds * 1000)) > 0
    }

    /// How the stream ends after the replies read so far: `.eof` when
    /// nothing more comes and the server closed cleanly.
    func expectCleanEOF() -> StreamEnd {
        let (rest, end) = readToEnd()
        return rest.isEmpty ? end : .unexpectedBytes(rest)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start + needle.count
        }
        return nil
    }
}

/// Runs `count` clients, each on a thread of its own (blocking sockets must
/// not sit on the few threads of Swift's cooperative pool). Each thread runs
/// `prepare(index)` (say, connect), then all wait for one another and run
/// `body(index, prepared)` at once. Returns false if they did not all finish
/// within `timeout` seconds.
func runOnThreads<T>(_ count: Int, timeout: Double = 60,
                     prepare: @escaping @Sendable (Int) -> T,
                     _ body: @escaping @Sendable (Int, T) -> Void) -> Bool {
    let ready = DispatchGroup()
    let done = DispatchGroup()
    let gate = DispatchSemaphore(value: 0)
    for index in 0..<count {
        ready.enter()
        done.enter()
        let thread = Thread {
            let prepared = prepare(index)
            ready.leave()
            gate.wait()
            body(index, prepared)
            done.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    let allReady = ready.wait(timeout: .now() + timeout) == .success
    for _ in 0..<count { gate.signal() }
    return allReady && done.wait(timeout: .now() + timeout) == .success
}

/// Waits until `condition` holds, polling; false on timeout.
func eventually(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return condition()
}

/// Work on a thread of its own, joined with `wait` (say, a client that
/// sends while the test reads, so neither side blocks the other).
final class Background: Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [done] in
            body()
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Whether the work finished within `timeout` seconds.
    @discardableResult
    func wait(timeout: Double = 30) -> Bool {
        done.wait(timeout: .now() + timeout) == .success
    }
}

/// A value shared between threads.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        mutex.withLock { body(&$0) }
    }

    var value: Value { mutex.withLock { $0 } }
}
