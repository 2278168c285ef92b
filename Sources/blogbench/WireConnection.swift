import BlogClient
#if canImport(Glibc)
import Glibc
import BlogWire
#endif

/// One blocking TCP connection to the server, framed by BlogCore's codec.
///
/// Blocking sockets with send/receive timeouts keep each client a plain
/// loop on its own thread: the simplest thing that measures honestly.
final class WireConnection {
    private var fd: Int32
    private var decoder = FrameDecoder()
    private var chunk = [UInt8](repeating: 0, count: 16 * 1024)

    /// Connects to `address`; every later send or receive gives up after
    /// `timeout` seconds (connect too: Linux applies SO_SNDTIMEO to it).
    init(to address: ResolvedAddress, timeout: Double) throws(WireError) {
        fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw WireError.from(errno: errno, call: "socket") }
        var limit = Self.timeval(timeout)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        // Each message leaves in one send and the next waits for the reply,
        // so Nagle would only ever add delay.
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        while true {
            let status = address.withSockaddr { Glibc.connect(fd, $0, $1) }
            if status == 0 { break }
            if errno == EINTR { continue }
            let error = WireError.from(errno: errno, call: "connect")
            close()
            throw error
        }
    }

    deinit { close() }

    /// Sends all of `bytes` (a short write resumes where it stopped).
    func send(_ bytes: [UInt8]) throws(WireError) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
            }
            if n > 0 { sent += n; continue }
            if n < 0 && errno == EINTR { continue }
            throw n == 0 ? .reset : WireError.from(errno: errno, call: "send")
        }
    }

    /// Reads until one complete message has arrived and returns its body
    /// (keep-alive: the connection stays usable for the next request).
    func receiveMessage() throws(WireError) -> [UInt8] {
        while true {
            if let event = decoder.next() {
                switch event {
                case .message(let body): return body
                case .oversized: throw .oversizedReply
                }
            }
            guard try receiveChunk() else { throw .closedBeforeReply }
        }
    }

    /// The original client's way: read until the server closes, then hand
    /// out every message that came (normally exactly one).
    func receiveUntilClosed() throws(WireError) -> [[UInt8]] {
        while try receiveChunk() {}
        var messages: [[UInt8]] = []
        while let event = decoder.next() {
            switch event {
            case .message(let body): messages.append(body)
            case .oversized: throw .oversizedReply
            }
        }
        if messages.isEmpty { throw .closedBeforeReply }
        return messages
    }

    /// Whether the server has spoken or closed while no request was out:
    /// an idle keep-alive connection it timed out (`err:TIME`, then close).
    /// Such a connection must not carry the next request, or that stale
    /// reply would be taken for the answer.
    var isStale: Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    /// Reads and drops whatever comes until the peer closes.
    func waitForClose() throws(WireError) {
        while try receiveChunk() {}
    }

    /// Changes the receive timeout (the probe waits less for a close).
    func setReceiveTimeout(_ seconds: Double) {
        var limit = Self.timeval(seconds)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func timeval(_ seconds: Double) -> Glibc.timeval {
        Glibc.timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
    }

    /// Whether bytes arrived after the last complete message.
    var hasTrailingBytes: Bool { decoder.hasPartialMessage }

    /// One recv into the decoder; `false` when the peer closed.
    private func receiveChunk() throws(WireError) -> Bool {
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                decoder.append(chunk[0..<n])
                return true
            }
            if n == 0 { return false }
            if errno == EINTR { continue }
            throw WireError.from(errno: errno, call: "recv")
        }
    }

    /// Closes the socket; later calls do nothing.
    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }
}
