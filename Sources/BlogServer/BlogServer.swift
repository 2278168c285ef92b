import BlogCore
@preconcurrency import Dispatch
import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The TCP server: listening sockets, the connection limit, and a graceful
/// stop. Connections do the protocol work; the service does the rest.
public final class BlogServer: Sendable {
    public struct Options: Sendable {
        /// `*` for every address (IPv4 and IPv6), or a host name or address.
        public var host = "*"
        /// 0 asks the system for any free port; `port` tells which it chose.
        public var port = 51515
        public var maxConnections = 1024
        /// Requests carried out at once (the others wait their turn without
        /// holding a thread).
        public var maxConcurrentRequests = 64
        public var connection = ConnectionOptions()

        public init() {}
    }

    private struct State {
        var listeners: [ListeningSocket] = []
        var acceptSources: [any DispatchSourceRead] = []
        var connections: [ObjectIdentifier: Connection] = [:]
        /// The connections among `connections` that only get `err:BUSY`.
        var rejected: Set<ObjectIdentifier> = []
        var stopping = false
    }

    public let options: Options
    private let service: BlogService
    private let logger: Logger
    private let state = Mutex(State())
    private let stopping = Atomic<Bool>(false)
    private let acceptQueue = DispatchQueue(label: "blogd.accept")
    private let allClosed = DispatchGroup()
    private let workers: RequestLimiter

    public init(service: BlogService, options: Options, logger: Logger = Logger(label: "blogd.server")) {
        self.service = service
        self.options = options
        self.logger = logger
        self.workers = RequestLimiter(limit: max(1, options.maxConcurrentRequests))
    }

    /// The port the server listens on (the real one when asked for 0).
    public var port: Int { state.withLock { $0.listeners.first?.port ?? options.port } }

    /// Connections open right now, rejected ones included.
    public var connectionCount: Int { state.withLock { $0.connections.count } }

    /// Binds and starts accepting. Returns at once; the work runs on Dispatch.
    public func start() throws(ServerError) {
        // A peer that vanishes mid-write must not kill the process.
        signal(SIGPIPE, SIG_IGN)
        let listeners = try ListeningSocket.bind(host: options.host, port: options.port)
        let sources = listeners.map { listener in
            let source = DispatchSource.makeReadSource(fileDescriptor: listener.fd, queue: acceptQueue)
            source.setEventHandler { [self] in accept(from: listener.fd, source: source) }
            source.setCancelHandler { close(listener.fd) }
            return source
        }
        state.withLock {
            $0.listeners = listeners
            $0.acceptSources = sources
        }
        sources.forEach { $0.resume() }
    }

    /// Stops accepting, lets requests in flight finish and their replies
    /// leave, closes idle connections, and waits up to `timeout` seconds.
    /// Returns whether every connection closed in time.
    @discardableResult
    public func stop(timeout: Double = 10) -> Bool {
        stopping.store(true, ordering: .sequentiallyConsistent)
        let (sources, connections) = state.withLock { state in
            state.stopping = true
            defer { state.acceptSources = [] }
            return (state.acceptSources, Array(state.connections.values))
        }
        acceptQueue.sync { sources.forEach { $0.cancel() } }
        connections.forEach { $0.stop() }
        return allClosed.wait(timeout: .now() + timeout) == .success
    }

    private func accept(from listener: Int32, source: any DispatchSourceRead) {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.accept(listener, $0, &length)
                }
            }
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: back off instead of spinning on a
                    // listener that stays readable.
                    logger.warning("accept paused", metadata: ["error": "\(String(cString: strerror(errno)))"])
                    source.suspend()
                    acceptQueue.asyncAfter(deadline: .now() + 0.1) { source.resume() }
                default: break
                }
                return
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            admit(fd: fd, peer: SocketAddress.ipString(address))
        }
    }

    private func admit(fd: Int32, peer: String) {
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        let connection = Connection(
            fd: fd, peer: peer, service: service, workers: workers, options: options.connection, logger: logger,
            isStopping: { [self] in stopping.load(ordering: .relaxed) },
            onClose: { [self] in closed($0) })
        let verdict: Reply?? = state.withLock { state in
            guard !state.stopping else { return .none }
            let served = state.connections.count - state.rejected.count
            if served >= options.maxConnections {
                // Rejections cost a little too: past a second limit's worth,
                // close without the courtesy of a reply.
                guard state.rejected.count < options.maxConnections else { return .none }
                state.rejected.insert(ObjectIdentifier(connection))
                state.connections[ObjectIdentifier(connection)] = connection
                return .some(.busy)
            }
            state.connections[ObjectIdentifier(connection)] = connection
            return .some(nil)
        }
        guard let reply = verdict else {
            close(fd)
            return
        }
        allClosed.enter()
        if reply == .busy { logger.notice("connection limit reached", metadata: ["peer": "\(peer)"]) }
        connection.start(rejecting: reply)
    }

    private func closed(_ connection: Connection) {
        state.withLock { state in
            state.connections[ObjectIdentifier(connection)] = nil
            state.rejected.remove(ObjectIdentifier(connection))
        }
        allClosed.leave()
    }
}
