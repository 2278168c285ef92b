import BlogSockets
import BlogWire
#if canImport(Glibc)
import Glibc
#endif

/// One blocking TCP connection to the server, framed by BlogWire's codec.
///
/// Blocking sockets with send/receive timeouts keep each client a plain
/// loop on its own thread: the simplest thing that measures honestly.
final class WireConnection {
    private let socket: Socket
    private let timeout: Double
    private var isClosed = false
    private var decoder = FrameDecoder()
    private var chunk = [UInt8](repeating: 0, count: 16 * 1024)

    /// Connects to `address` within `timeout` seconds; every later send or
    /// receive gives up after `timeout` seconds too.
    init(to address: SocketAddress, timeout: Double) throws(WireError) {
        do {
            socket = try Socket.connect(to: address, until: Deadline(seconds: timeout))
        } catch {
            throw WireError(error)
        }
        self.timeout = timeout
        do {
            try socket.setBlocking(true)
            try socket.setTimeouts(seconds: timeout)
            // Each message leaves in one send and the next waits for the
            // reply, so Nagle would only ever add delay.
            try socket.setNoDelay()
        } catch {
            close()
            throw WireError(error)
        }
    }

    deinit { close() }

    /// Sends all of `bytes` (a short write resumes where it stopped).
    func send(_ bytes: [UInt8]) throws(WireError) {
        do {
            // Each blocking send waits at most `timeout` (SO_SNDTIMEO); the
            // deadline bounds the whole message the same way.
            try socket.sendAll(bytes, until: Deadline(seconds: timeout))
        } catch {
            throw WireError(error)
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
        socket.wait(for: Int16(POLLIN), until: Deadline(seconds: 0)) != nil
    }

    /// Reads and drops whatever comes until the peer closes.
    func waitForClose() throws(WireError) {
        while try receiveChunk() {}
    }

    /// Changes the send and receive timeouts (the probe, done sending,
    /// waits less for a close).
    func setTimeouts(_ seconds: Double) throws(WireError) {
        do { try socket.setTimeouts(seconds: seconds) } catch { throw WireError(error) }
    }

    /// Whether bytes arrived after the last complete message.
    var hasTrailingBytes: Bool { decoder.hasPartialMessage }

    /// One receive into the decoder; `false` when the peer closed.
    private func receiveChunk() throws(WireError) -> Bool {
        let result = chunk.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in try socket.receive(into: raw) }
        }
        switch result {
        case .success(.done(0)): return false
        case .success(.done(let count)):
            decoder.append(chunk[0..<count])
            return true
        // A blocking socket says EAGAIN when SO_RCVTIMEO expires.
        case .success(.wouldBlock): throw .timeout
        case .failure(let error): throw WireError(error)
        }
    }

    /// Closes the socket; later calls do nothing.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        socket.close()
    }
}
