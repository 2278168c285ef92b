import BlogSockets
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

    let socket: Socket
    /// Bytes received but not yet handed out by `readReply`.
    private var buffer: [UInt8] = []
    private var closed = false

    /// The descriptor, for tests that make raw calls on it.
    var fd: Int32 { socket.fd }

    /// Connects to `host` (an IPv4 or IPv6 literal) at `port`; a small
    /// `receiveBuffer` makes the server's writes block sooner. With
    /// `source` (an IPv4 literal such as `127.0.0.2`), the socket is bound
    /// to that local address first, so the server sees another peer.
    init(port: Int, host: String = "127.0.0.1", timeout: Double = 60, receiveBuffer: Int32? = nil,
         source: String? = nil) throws(ClientError) {
        let address: SocketAddress
        do { address = try SocketAddress(ip: host, port: port) } catch { throw .resolve(host) }
        var local: SocketAddress?
        if let source {
            guard let parsed = try? SocketAddress(ip: source, port: 0), parsed.family == address.family else {
                throw .resolve(source)
            }
            local = parsed
        }
        let socket: Socket
        do { socket = try Socket.tcp(family: address.family) } catch { throw .connect(Self.code(of: error)) }
        do {
            // Before connecting: the window offered in the handshake
            // follows the buffer.
            if let receiveBuffer { try socket.setReceiveBuffer(receiveBuffer) }
            if let local { try socket.bind(to: local) }
            try socket.connect(to: address, until: Deadline(seconds: timeout))
            try socket.setBlocking(true)
            try socket.setTimeouts(seconds: timeout)
            // Small writes leave at once, so "one byte at a time" really is.
            try socket.setNoDelay()
        } catch {
            socket.close()
            throw .connect(Self.code(of: error))
        }
        self.socket = socket
    }

    deinit { close() }

    // MARK: Sending

    func send(_ text: String) throws(ClientError) {
        try send(Array(text.utf8))
    }

    /// Sends all of `bytes`; a send that the timeout stops throws EAGAIN.
    func send(_ bytes: [UInt8]) throws(ClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Result { () throws(SocketError) in try socket.send(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            switch sent {
            case .success(.done(let count)): offset += count
            case .success(.wouldBlock): throw .send(EAGAIN)
            case .failure(let error): throw .send(Self.code(of: error))
            }
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
        socket.shutdownWrite()
    }

    /// Closes with a reset (SO_LINGER 0) instead of a FIN.
    func reset() {
        guard !closed else { return }
        try? socket.setResetOnClose()
        close()
    }

    func close() {
        guard !closed else { return }
        closed = true
        socket.close()
    }

    /// The errno behind a socket failure (ETIMEDOUT for a deadline).
    private static func code(of error: SocketError) -> Int32 {
        error.errno ?? ETIMEDOUT
    }

    // MARK: Receiving

    /// One recv into the buffer: nil when bytes came, else how the stream ended.
    private func receiveMore() -> StreamEnd? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let result = chunk.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in try socket.receive(into: raw) }
        }
        switch result {
        case .success(.done(0)): return .eof
        case .success(.done(let count)):
            buffer += chunk[0..<count]
            return nil
        // A blocking socket says EAGAIN when SO_RCVTIMEO expires.
        case .success(.wouldBlock): return .timedOut
        case .failure(let error):
            let code = Self.code(of: error)
            return code == ECONNRESET ? .reset : .error(code)
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
        return socket.wait(for: Int16(POLLIN), until: Deadline(seconds: seconds)) != nil
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
func runOnThreads<T>(_ count: Int, timeout: Double = 180,
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
func eventually(timeout: Double = 60, _ condition: () -> Bool) -> Bool {
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
    func wait(timeout: Double = 120) -> Bool {
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
