#if canImport(Glibc)
import Glibc
#endif

/// A connected, non-blocking TCP socket: connect with a deadline, and the
/// single system calls the connection builds on. It does not own the fd's
/// lifetime; `BlogConnection` closes it.
struct TCPSocket {
    /// How one non-blocking receive ended.
    enum Received {
        case bytes([UInt8])
        /// Nothing to read right now.
        case wouldBlock
        /// The peer closed its side (EOF) or reset the connection.
        case closed
    }

    /// How one non-blocking send ended.
    enum Sent {
        case bytes(Int)
        /// The send buffer is full right now.
        case wouldBlock
        /// The peer is gone (reset, or closed for reading).
        case closed
    }

    let fd: Int32
    /// The numeric address connected to.
    let peer: String

    /// Connects to the first address of `host` that accepts, trying each
    /// address getaddrinfo gives (IPv6 and IPv4) in turn.
    static func connect(host: String, port: Int, deadline: Deadline) throws(BlogClientError) -> TCPSocket {
        let addresses = try AddressResolver.resolve(host: host, port: port)
        var refused = false
        var lastError: Int32 = ECONNREFUSED
        for address in addresses {
            let fd = socket(address.family,
                            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                // A family the kernel lacks (IPv6 off): try the next address.
                guard errno == EAFNOSUPPORT else { throw .socketFailure(call: "socket", errno: errno) }
                lastError = errno
                continue
            }
            let code = connect(fd, to: address, deadline: deadline)
            if code == 0 {
                var on: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                return TCPSocket(fd: fd, peer: address.numericHost)
            }
            Glibc.close(fd)
            if code == ETIMEDOUT { throw .timedOut(.connecting) }
            if code == ECONNREFUSED { refused = true } else { lastError = code }
        }
        if refused { throw .connectionRefused(host: host, port: port) }
        throw .cannotConnect(host: host, port: port, errno: lastError)
    }

    /// 0 when connected, else the errno (ETIMEDOUT when the deadline passed).
    private static func connect(_ fd: Int32, to address: ResolvedAddress, deadline: Deadline) -> Int32 {
        var storage = address.storage
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
        }
        if status == 0 { return 0 }
        // After EINTR the connection goes on in the background, as after EINPROGRESS.
        guard errno == EINPROGRESS || errno == EINTR else { return errno }
        let socket = TCPSocket(fd: fd, peer: "")
        guard socket.wait(for: Int16(POLLOUT), until: deadline) != nil else { return ETIMEDOUT }
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return errno }
        return code
    }

    /// Waits until one of `events` (or an error or hang-up) is ready and
    /// returns poll's `revents`; `nil` when the deadline passed first.
    func wait(for events: Int16, until deadline: Deadline) -> Int16? {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let status = poll(&entry, 1, deadline.remainingMilliseconds)
            if status > 0 { return entry.revents }
            if status == 0 {
                if deadline.remainingMilliseconds == 0 { return nil }
                continue
            }
            if errno == EINTR { continue }
            // poll itself failed: let the next send or receive find out why.
            return Int16(POLLERR)
        }
    }

    /// Waits until bytes (or the end of the stream, or an error) can be
    /// read; false when the deadline passed first.
    func waitReadable(until deadline: Deadline) -> Bool {
        wait(for: Int16(POLLIN), until: deadline) != nil
    }

    /// Waits until the socket can be read (bytes, end, error) or written;
    /// `nil` when the deadline passed first.
    func waitReadableOrWritable(until deadline: Deadline) -> (readable: Bool, writable: Bool)? {
        guard let events = wait(for: Int16(POLLIN | POLLOUT), until: deadline) else { return nil }
        return (events & Int16(POLLIN | POLLHUP | POLLERR) != 0, events & Int16(POLLOUT) != 0)
    }

    /// One non-blocking receive of whatever is there.
    func receive() -> Received {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { return .bytes(Array(chunk[0..<n])) }
            if n == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .closed
            }
        }
    }

    /// One non-blocking send of as much of `bytes` as fits.
    func send(_ bytes: ArraySlice<UInt8>) -> Sent {
        while true {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n >= 0 { return .bytes(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .closed
            }
        }
    }

    /// Closes the write half: the server reads EOF, replies still come in.
    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    func close() {
        Glibc.close(fd)
    }
}
