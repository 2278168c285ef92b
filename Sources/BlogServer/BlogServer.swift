import BlogCore
import BlogSockets
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
import BlogLimits
#endif

/// The TCP server of the blog protocol: listening sockets, event loops that
/// own the connections, the connection limit, and a graceful stop.
///
/// Sockets are driven by blogd's own epoll loops (`EventLoop`); each
/// connection's rules are a `ConnectionMachine`; requests are carried out
/// by the service on Dispatch.
///
///     let server = BlogServer(service: service, options: options)
///     try server.start()
///     print("listening on", server.port)
///     ...
///     server.stop(timeout: 10)
public final class BlogServer: Sendable {
    public struct Options: Sendable {
        /// `*` for every address (IPv4 and IPv6), or a host name or address.
        public var host = "*"
        /// 0 asks the system for any free port; `port` tells which it chose.
        public var port = 51515
        /// Connections served at once; 0 sizes it from the descriptor limit
        /// (`automaticMaxConnections`), since an idle connection costs only
        /// a descriptor and a few kilobytes.
        public var maxConnections = 0
        /// Descriptors kept back from the automatic limit for everything
        /// else (the database, the page server, the page files).
        public var reservedDescriptors = 256
        /// Seconds a connection must have waited for a message before a
        /// newcomer may take its place when the table is full; nil never
        /// evicts (first come, first served). 0 by default: a crowd that
        /// opens its connections together also times out together, and
        /// for a while after that none would be old enough. The longest
        /// waiting goes first anyway, and only from an address holding
        /// more than half its share, so a client's one connection is safe.
        public var evictIdleAfter: Double? = 0
        /// Connections from one address (an IPv6 /64 counts as one) at once.
        public var maxConnectionsPerAddress = 32
        /// Password hashes (registers and logins, known names or not) one
        /// address may start per second, on average...
        public var hashesPerAddressPerSecond = 2.0
        /// ...and at once after a quiet spell.
        public var hashBurstPerAddress = 10
        /// Bytes of posts one address may send per second, on average...
        public var postBytesPerAddressPerSecond = 256 * 1024
        /// ...and at once after a quiet spell (never less than one message
        /// of the largest size).
        public var postBurstBytesPerAddress = 1024 * 1024
        /// Seconds of hashing that registers and logins may hold waiting;
        /// past it, a new one gets `err:BUSY` at once.
        public var maxHashWait = 2.0
        /// Numeric addresses the per-address budgets (connections, hashes)
        /// leave alone; the limits in all still count them.
        public var budgetExempt: [String] = ["127.0.0.1", "::1"]
        /// Posts (and other requests that hash no password) carried out at
        /// once; the others wait their turn without holding a thread.
        public var maxConcurrentRequests = 64
        /// Epoll threads; 0 is one per core, which served best when
        /// measured on this project's 2-core machines (README, "The event loop").
        public var eventLoops = 0
        /// Expect a PROXY protocol header (v1 or v2) before the first
        /// message from the `trustedProxies`, and take the client it names
        /// as the peer; refuse one from anybody else.
        public var proxyProtocol = false
        /// Addresses or networks (`10.0.0.0/8`) whose PROXY headers are
        /// believed, when `proxyProtocol` is on.
        public var trustedProxies: [String] = []
        public var connection = ConnectionOptions()
        /// The clock of timeouts; tests move a manual one by hand.
        public var clock = ServerClock.system

        public init() {}
    }

    private struct State {
        var listeners: [ListeningSocket] = []
        var loops: [EventLoop] = []
        var router: RequestRouter?
        var stopped = false
    }

    public let options: Options
    private let service: BlogService
    private let logger: Logger
    private let state = Mutex(State())
    private let limits: ConnectionLimits
    private let refusals: RefusalLog

    public init(service: BlogService, options: Options, logger: Logger = Logger(label: "blogd.server")) {
        self.service = service
        self.options = options
        self.logger = logger
        let exempt = Set(options.budgetExempt.compactMap { AddressKey(text: $0) })
        let maxConnections = options.maxConnections > 0 ? options.maxConnections
            : Self.automaticMaxConnections(reserving: options.reservedDescriptors)
        self.limits = ConnectionLimits(maxConnections: maxConnections,
                                       maxPerAddress: options.maxConnectionsPerAddress, exempt: exempt,
                                       metrics: ConnectionMetrics.shared.admission)
        self.refusals = RefusalLog(logger: logger)
        // Made with the server, so that /metrics shows them from the start.
        _ = (RequestMetrics.shared, ConnectionMetrics.shared, LaneMetrics.shared, BudgetMetrics.shared)
    }

    /// The connection limit for `maxConnections` 0: half of the descriptors
    /// the process may open past the reserve (the other half is for the
    /// connections refused over the limit, which hold one while they are
    /// told so), and at least 16.
    public static func automaticMaxConnections(reserving reserved: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        let open = Int(clamping: min(limit.rlim_cur, 1 << 20))
        return max(16, (open - reserved) / 2)
    }

    /// Applies the limits of `options` that can change while the server
    /// runs (a reload): the connection limits and the per-address budgets.
    /// The rest of `options` is ignored; it needs a restart.
    public func reload(limits options: Options) {
        let maxConnections = options.maxConnections > 0 ? options.maxConnections
            : Self.automaticMaxConnections(reserving: options.reservedDescriptors)
        limits.set(maxConnections: maxConnections, maxPerAddress: options.maxConnectionsPerAddress)
        guard let router else { return }
        router.hashBudget.set(perSecond: options.hashesPerAddressPerSecond, burst: Double(options.hashBurstPerAddress))
        router.postBudget.set(perSecond: Double(options.postBytesPerAddressPerSecond),
                              burst: Double(max(options.postBurstBytesPerAddress, options.connection.maxMessageBytes)))
    }

    /// Connections served at once (`Options.maxConnections`, or the one
    /// sized from the descriptor limit).
    public var maxConnections: Int { limits.maxConnections }

    /// Since the start: connections refused over a limit, and idle ones
    /// evicted for newcomers.
    public var refusalCounts: (overLimit: Int, evicted: Int) { refusals.counts }

    /// The port the server listens on (the real one when asked for 0).
    public var port: Int { state.withLock { $0.listeners.first?.port ?? options.port } }

    /// Connections open right now, rejected ones included.
    public var connectionCount: Int { limits.openCount }

    /// Open connections whose input the server leaves unread right now:
    /// their replies pile up unread, or a message waits behind the one in
    /// hand (backpressure), or the peer has closed its side.
    public var unreadConnections: Int { state.withLock { $0.loops }.reduce(0) { $0 + $1.unreadCount } }

    /// Connections whose `err:BUSY` is held back for the busy delay.
    public var heldRefusals: Int { state.withLock { $0.loops }.reduce(0) { $0 + $1.refusingCount } }

    /// The lanes and budgets requests go through (for tests).
    var router: RequestRouter? { state.withLock { $0.router } }

    /// Connections accepted since the start, whatever became of them.
    public var acceptedConnections: Int { limits.acceptedCount }

    /// Binds and starts the event loops. Returns at once.
    public func start() throws(ServerError) {
        // A peer that vanishes mid-write must not kill the process.
        signal(SIGPIPE, SIG_IGN)
        var proxies: TrustedProxies?
        if options.proxyProtocol {
            do {
                proxies = try TrustedProxies(options.trustedProxies)
            } catch {
                throw .invalidTrustedProxy(error)
            }
        }
        let listeners: [ListeningSocket]
        do {
            listeners = try ListeningSocket.bind(host: options.host, port: options.port)
        } catch {
            throw .cannotListen(error)
        }
        let audit = AuditLog(logger: logger)
        let router = RequestRouter(
            service: service,
            posts: Lane(name: "posts", limit: max(1, options.maxConcurrentRequests)),
            // Every admitted request gets a place at once, so that it waits
            // in the hashing threads' queue, which takes addresses in turn,
            // and not in a first-come line before it.
            hashing: HashLane(maxWait: options.maxHashWait, concurrency: 64) { [service] in
                (service.secondsPerHash, service.hashingThreads)
            },
            hashBudget: AddressBudget(perSecond: options.hashesPerAddressPerSecond, burst: Double(options.hashBurstPerAddress),
                                      exempt: limits.exempt),
            postBudget: AddressBudget(perSecond: Double(options.postBytesPerAddressPerSecond),
                                      burst: Double(max(options.postBurstBytesPerAddress, options.connection.maxMessageBytes)),
                                      exempt: limits.exempt),
            audit: audit, clock: options.clock)
        let context = EventLoop.Context(connection: options.connection, limits: limits, router: router,
                                        audit: audit, clock: options.clock, proxies: proxies,
                                        evictIdleAfter: options.evictIdleAfter, refusals: refusals)
        var loops: [EventLoop] = []
        do {
            let count = options.eventLoops > 0 ? options.eventLoops : System.coreCount
            for index in 0..<count {
                loops.append(try EventLoop(name: "blogd.loop.\(index)", context: context, listeners: listeners))
            }
        } catch {
            listeners.forEach { $0.socket.close() }
            throw .cannotStartLoop(error)
        }
        state.withLock {
            $0.listeners = listeners
            $0.loops = loops
            $0.router = router
        }
        loops.forEach { $0.start() }
    }

    /// Stops accepting, lets requests in flight finish and their replies
    /// leave, closes idle connections, and waits up to `timeout` seconds.
    /// Returns whether every connection closed in time; calling it again
    /// waits again.
    @discardableResult
    public func stop(timeout: Double = 10) -> Bool {
        let (loops, listeners, first) = state.withLock { state in
            defer { state.stopped = true }
            return (state.loops, state.listeners, !state.stopped)
        }
        if first {
            loops.forEach { $0.requestStop() }
            // No loop watches them any more.
            listeners.forEach { $0.socket.close() }
        }
        let deadline = Deadline(seconds: timeout)
        let stopped = loops.allSatisfy { $0.waitUntilExited(timeout: Double(deadline.remainingMilliseconds) / 1000) }
        AuditLog(logger: logger).flush()
        return stopped
    }
}

/// How connections behave: the network half of `BlogConfig`.
public typealias ConnectionOptions = ConnectionMachine.Options

enum System {
    /// Cores this process may run on.
    static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}
