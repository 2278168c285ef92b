#if canImport(Glibc)
import CLinux
import Glibc
#endif

/// An epoll instance: which descriptors to watch, and for what.
///
/// Level-triggered: a descriptor stays ready until it is read or written,
/// so a loop that handles only part of the input is woken again.
///
///     let epoll = try Epoll()
///     try epoll.add(socket.fd, events: .readable, token: 7)
///     let ready = try epoll.wait(into: &events, timeoutMilliseconds: 100)
public struct Epoll: Sendable {
    /// What to watch a descriptor for.
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let readable = Events(rawValue: EPOLLIN.rawValue)
        public static let writable = Events(rawValue: EPOLLOUT.rawValue)
        /// The peer closed its write half (with `readable` set too).
        public static let peerClosed = Events(rawValue: EPOLLRDHUP.rawValue)
        public static let error = Events(rawValue: EPOLLERR.rawValue)
        public static let hangUp = Events(rawValue: EPOLLHUP.rawValue)
        /// Wake one waiter only, for a descriptor several epolls watch.
        public static let exclusive = Events(rawValue: 1 << 28)
    }

    public let fd: Int32

    public init() throws(SocketError) {
        fd = try systemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    /// Watches `fd`; `token` comes back with each of its events.
    public func add(_ fd: Int32, events: Events, token: UInt64) throws(SocketError) {
        try control(EPOLL_CTL_ADD, fd, events, token)
    }

    public func modify(_ fd: Int32, events: Events, token: UInt64) throws(SocketError) {
        try control(EPOLL_CTL_MOD, fd, events, token)
    }

    /// Stops watching `fd` (closing it does that too).
    public func remove(_ fd: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(self.fd, EPOLL_CTL_DEL, fd, &event)
    }

    /// Room for the events one `wait` reports.
    public struct ReadyList {
        fileprivate var raw: [epoll_event]
        public private(set) var count = 0

        public init(capacity: Int = 256) {
            raw = [epoll_event](repeating: epoll_event(), count: max(1, capacity))
        }

        /// The token and events of the `index`th ready descriptor.
        public subscript(index: Int) -> (token: UInt64, events: Events) {
            (raw[index].data.u64, Events(rawValue: raw[index].events))
        }

        fileprivate mutating func setCount(_ count: Int) { self.count = count }
    }

    /// Waits for events, at most `timeoutMilliseconds` (-1: no limit), and
    /// fills `ready` with them. A signal ends the wait early with none.
    public func wait(into ready: inout ReadyList, timeoutMilliseconds: Int32) throws(SocketError) {
        let count = ready.raw.withUnsafeMutableBufferPointer { epoll_wait(fd, $0.baseAddress, Int32($0.count), timeoutMilliseconds) }
        if count >= 0 { return ready.setCount(Int(count)) }
        let code = errno
        ready.setCount(0)
        if code == EINTR { return }
        throw .system(call: "epoll_wait", errno: code)
    }

    public func close() {
        _ = Glibc.close(fd)
    }

    private func control(_ operation: Int32, _ target: Int32, _ events: Events, _ token: UInt64) throws(SocketError) {
        var event = epoll_event()
        event.events = events.rawValue
        event.data.u64 = token
        try systemCall("epoll_ctl") { epoll_ctl(fd, operation, target, &event) }
    }
}

/// An eventfd: a counter another thread bumps to wake an epoll loop.
public struct EventFD: Sendable {
    public let fd: Int32

    public init() throws(SocketError) {
        fd = try systemCall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC)) }
    }

    /// Makes the descriptor readable (from any thread).
    public func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(fd, &one, MemoryLayout<UInt64>.size)
    }

    /// Resets it to unreadable (on the loop's thread).
    public func drain() {
        var count: UInt64 = 0
        _ = Glibc.read(fd, &count, MemoryLayout<UInt64>.size)
    }

    public func close() {
        _ = Glibc.close(fd)
    }
}
