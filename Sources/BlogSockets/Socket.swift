#if canImport(Glibc)
import CLinux
import Glibc
#endif

/// A TCP socket: its descriptor and the system calls blogd makes on it.
///
/// A value that does not own the descriptor's lifetime: whoever made it
/// calls `close()` once. Sockets are non-blocking unless `setBlocking`
/// says otherwise.
///
///     let socket = try Socket.connect(to: address, until: Deadline(seconds: 5))
///     defer { socket.close() }
///     try socket.setBlocking(true)
///     try socket.sendAll(Array("login:alice:pw[E];".utf8))
public struct Socket: Sendable, Hashable {
    public let fd: Int32

    public init(fd: Int32) {
        self.fd = fd
    }

    /// A new TCP socket of `family` (`AF_INET`, `AF_INET6`), non-blocking
    /// and closed on exec.
    public static func tcp(family: Int32) throws(SocketError) -> Socket {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        return Socket(fd: try systemCall("socket") { Glibc.socket(family, type, 0) })
    }

    // MARK: Connecting

    /// A new socket connected to `address` within `deadline`; with
    /// `source`, bound to that local address first (a test can then be
    /// another client address, say 127.0.0.2). Non-blocking.
    public static func connect(to address: SocketAddress, from source: SocketAddress? = nil,
                               until deadline: Deadline) throws(SocketError) -> Socket {
        let socket = try tcp(family: address.family)
        do {
            if let source { try socket.bind(to: source) }
            try socket.connect(to: address, until: deadline)
            return socket
        } catch {
            socket.close()
            throw error
        }
    }

    /// Connects this non-blocking socket, waiting at most until `deadline`.
    public func connect(to address: SocketAddress, until deadline: Deadline) throws(SocketError) {
        let status = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        if status == 0 { return }
        let code = errno
        // After EINTR the connection goes on in the background, as after EINPROGRESS.
        guard code == EINPROGRESS || code == EINTR else {
            throw .system(call: "connect", errno: code, address: address.description)
        }
        guard wait(for: Int16(POLLOUT), until: deadline) != nil else { throw .timedOut(call: "connect") }
        let failure: Int32 = try option(SOL_SOCKET, SO_ERROR)
        if failure != 0 { throw .system(call: "connect", errno: failure, address: address.description) }
    }

    // MARK: Listening

    public func bind(to address: SocketAddress) throws(SocketError) {
        try systemCall("bind", address: address.description) { address.withSockaddr { Glibc.bind(fd, $0, $1) } }
    }

    public func listen(backlog: Int32 = SOMAXCONN) throws(SocketError) {
        try systemCall("listen") { Glibc.listen(fd, backlog) }
    }

    /// The next waiting connection (non-blocking and closed on exec, like
    /// this socket), or `.wouldBlock` when none waits.
    public func accept() throws(SocketError) -> IOResult<(Socket, SocketAddress)> {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let result = try nonBlockingCall("accept") {
            withUnsafeMutableBytes(of: &storage) { clinux_accept4(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length, flags) }
        }
        switch result {
        case .done(let client): return .done((Socket(fd: client), SocketAddress(storage: storage, length: length)))
        case .wouldBlock: return .wouldBlock
        }
    }

    /// The address this socket is bound to.
    public func localAddress() throws(SocketError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        try systemCall("getsockname") {
            withUnsafeMutableBytes(of: &storage) { getsockname(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length) }
        }
        return SocketAddress(storage: storage, length: length)
    }

    // MARK: Reading and writing

    /// One receive into `buffer`: `.done(0)` is the end of the stream.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> IOResult<Int> {
        try nonBlockingCall("recv") { recv(fd, buffer.baseAddress, buffer.count, 0) }
    }

    /// One send of as much of `bytes` as fits; never raises SIGPIPE.
    public func send(_ bytes: UnsafeRawBufferPointer) throws(SocketError) -> IOResult<Int> {
        try nonBlockingCall("send") { Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends all of `bytes`, waiting while the socket's buffer is full (for
    /// blocking sockets, or until `deadline` for non-blocking ones).
    public func sendAll(_ bytes: some Collection<UInt8>, until deadline: Deadline = .distant) throws(SocketError) {
        let bytes = Array(bytes)
        var offset = 0
        while offset < bytes.count {
            let attempt = bytes.withUnsafeBytes { raw in
                Result { () throws(SocketError) in try send(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            switch try attempt.get() {
            case .done(let count): offset += count
            case .wouldBlock:
                guard wait(for: Int16(POLLOUT), until: deadline) != nil else { throw .timedOut(call: "send") }
            }
        }
    }

    /// Closes the write half: the peer reads the end of the stream, and
    /// can still send.
    public func shutdownWrite() {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    public func close() {
        _ = Glibc.close(fd)
    }

    /// Waits until one of `events` (or an error or hang-up) is ready and
    /// returns poll's `revents`; `nil` when the deadline passed first.
    public func wait(for events: Int16, until deadline: Deadline) -> Int16? {
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

    // MARK: Options

    /// Makes calls wait (true) or return `.wouldBlock` (false).
    public func setBlocking(_ blocking: Bool) throws(SocketError) {
        let flags = try systemCall("fcntl") { fcntl(fd, F_GETFL) }
        try systemCall("fcntl") { fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK) }
    }

    /// Sends small writes at once (no Nagle delay).
    public func setNoDelay() throws(SocketError) {
        try setOption(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1))
    }

    /// Lets a restarted server bind its port while old connections linger.
    public func setReuseAddress() throws(SocketError) {
        try setOption(SOL_SOCKET, SO_REUSEADDR, Int32(1))
    }

    /// For an IPv6 socket: accept IPv6 only (true), or IPv4 too (false).
    public func setIPv6Only(_ only: Bool) throws(SocketError) {
        try setOption(Int32(IPPROTO_IPV6), IPV6_V6ONLY, Int32(only ? 1 : 0))
    }

    /// The kernel's receive buffer, in bytes (a small one makes the peer's
    /// writes block sooner).
    public func setReceiveBuffer(_ bytes: Int32) throws(SocketError) {
        try setOption(SOL_SOCKET, SO_RCVBUF, bytes)
    }

    /// Makes `close` reset the connection (RST) instead of closing it
    /// gracefully (FIN).
    public func setResetOnClose() throws(SocketError) {
        try setOption(SOL_SOCKET, SO_LINGER, linger(l_onoff: 1, l_linger: 0))
    }

    /// For blocking sockets: each send and receive gives up after `seconds`
    /// (EAGAIN), and so does a blocking connect.
    public func setTimeouts(seconds: Double) throws(SocketError) {
        let limit = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        try setOption(SOL_SOCKET, SO_RCVTIMEO, limit)
        try setOption(SOL_SOCKET, SO_SNDTIMEO, limit)
    }

    public func setOption<Value>(_ level: Int32, _ name: Int32, _ value: Value) throws(SocketError) {
        _ = try withUnsafeBytes(of: value) { raw throws(SocketError) in
            try systemCall("setsockopt") { setsockopt(fd, level, name, raw.baseAddress, socklen_t(raw.count)) }
        }
    }

    public func option<Value: FixedWidthInteger>(_ level: Int32, _ name: Int32) throws(SocketError) -> Value {
        var value = Value.zero
        var length = socklen_t(MemoryLayout<Value>.size)
        try systemCall("getsockopt") { getsockopt(fd, level, name, &value, &length) }
        return value
    }
}
