import BlogLimits
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The public folder over HTTP: `blogd serve --http PORT`.
///
/// SwiftNIO's HTTP/1 codec on event loop threads of its own (one per
/// core), with a thread of its own for reading files: nothing of it runs
/// on Dispatch or on Swift's global executor, where the blog protocol's
/// requests run. Pages kept in memory are answered on the event loop as
/// the request comes in (`PageResponder`). It installs no signal
/// handlers; blogd's own handling stops it through `stop()`.
///
///     let web = try await WebServer(folder: URL(fileURLWithPath: "public"),
///                                   host: "*", port: 8080, logger: logger)
///     print(web.port)
///     // ... until SIGTERM:
///     await web.stop()
public final class WebServer: Sendable {
    /// The port it listens on (the real one when asked for 0).
    public let port: Int
    /// The HTTPS port, when it serves HTTPS too.
    public let tlsPort: Int?
    private let group: MultiThreadedEventLoopGroup
    private let fileThread: NIOThreadPool
    private let listeners: [any Channel]
    private let connections: OpenConnections
    private let cache: FileCache
    /// Replies being made off the fast path (a file read, a health check).
    private let slowReplies: PendingCount
    private let application: ApplicationRunner?
    private let stopping = Mutex<Task<Void, Never>?>(nil)

    /// Bytes of application request bodies held now (for tests).
    var reservedBodyBytes: Int { application?.bodies.reserved ?? 0 }

    /// Connections open right now (for tests).
    var openConnections: Int { connections.count }

    /// Since the start: connections closed over the per-address limit (or
    /// with none idle to evict), and idle ones evicted for newcomers.
    public var refusals: (refused: Int, evicted: Int) { connections.refusals }

    /// How long a page in memory is served before its file is checked
    /// again: a `stat` per page every so often instead of one a request,
    /// and a page blogd rewrites is served within this.
    static let pageCheckInterval: Duration = .milliseconds(50)

    /// Starts serving `folder` on `host` (`*` for every address, IPv4 and
    /// IPv6; `localhost`; or an IPv4 or IPv6 address) and `port` (0 for
    /// any free one); returns once it listens. Call `stop()` when done.
    /// `health`, when given, answers `/healthz` (see `PublicFolderHandler`);
    /// it may block: it runs on a thread of its own, one at a time, and
    /// one that has not answered within a second is a 503 (`HealthProbe`).
    /// With `accessLog`, each request is logged there at info level, one
    /// line: method, path, status, body bytes, milliseconds, the peer.
    /// `logger` is for the server's own troubles (nothing at info level).
    /// With `tls`, it serves the same folder over HTTPS on a port of its
    /// own too, and may send plain HTTP requests there. `micropub` is the
    /// Micropub endpoint each page's reply names (`PublicFolderHandler`).
    public convenience init(folder: URL, host: String, port: Int, logger: Logger, limits: Limits = Limits(),
                            health: (@Sendable () -> Bool)? = nil, accessLog: Logger? = nil,
                            tls: TLS? = nil, application: (any WebApplication)? = nil,
                            micropub: String? = nil, webmention: String? = nil) async throws(StartError) {
        try await self.init(folder: folder, host: host, port: port, logger: logger, limits: limits, health: health,
                            accessLog: accessLog, tls: tls, application: application, micropub: micropub,
                            webmention: webmention,
                            clock: { NIODeadline.now().uptimeNanoseconds })
    }

    /// HTTPS beside plain HTTP.
    public struct TLS: Sendable {
        public var certificates: TLSCertificates
        /// The HTTPS port (0 for any free one).
        public var port: Int
        /// Plain HTTP answers every request (but `/healthz`, for balancers)
        /// with a redirect to the same URL over HTTPS.
        public var redirectPlain: Bool
        /// The site's host name, for those redirects (nil: the one each
        /// request names).
        public var host: String?

        public init(certificates: TLSCertificates, port: Int, redirectPlain: Bool = false, host: String? = nil) {
            self.certificates = certificates
            self.port = port
            self.redirectPlain = redirectPlain
            self.host = host
        }
    }

    /// Tells the server that the file `name` of its folder (`alice.html`,
    /// `alice/17.html`) was just written or removed: it is read afresh
    /// from the next request on, without waiting for its next check.
    public func pageChanged(_ name: String) {
        cache.changed(name)
    }

    /// The same, with the clock (monotonic nanoseconds) that times how long
    /// a page in memory goes unchecked: tests move it on.
    init(folder: URL, host: String, port: Int, logger: Logger, limits: Limits = Limits(),
         health: (@Sendable () -> Bool)? = nil, accessLog: Logger? = nil, tls: TLS? = nil,
         application: (any WebApplication)? = nil, micropub: String? = nil, webmention: String? = nil,
         clock: @escaping @Sendable () -> UInt64) async throws(StartError) {
        guard let bindHosts = ListenHost.bindHosts(for: host) else { throw .badHost(host) }
        for port in [port] + (tls.map { [$0.port] } ?? []) where !(0...65535).contains(port) {
            throw .cannotListen(host: host, port: port, reason: "no such port")
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: Self.loopThreads)
        let fileThread = NIOThreadPool(numberOfThreads: 1)
        fileThread.start()
        let connections = OpenConnections(maxConnections: limits.maxConnections,
                                          maxPerAddress: limits.maxConnectionsPerAddress)
        let slowReplies = PendingCount()
        // Never on the file thread: a database that hangs would stop the pages.
        let healthy = health.map { HealthProbe(limit: 1, $0).check }
        let cache = FileCache(folder: folder.path, capacity: limits.cacheBytes, trustedFor: Self.pageCheckInterval, now: clock)
        let files = PublicFolderHandler(folder: folder, files: CachedFiles(cache: cache, thread: fileThread), health: healthy,
                                        micropub: micropub, webmention: webmention,
                                        varyAccept: application?.negotiatesPages ?? false)
        let runner = application.map {
            ApplicationRunner(application: $0, threads: limits.applicationThreads, maxWaiting: limits.maxApplicationRequests,
                              bodies: BodyBudget(maxTotal: limits.maxBodyBytes, maxPerAddress: limits.maxBodyBytesPerAddress),
                              refusalDelay: TimeAmount(limits.refusalHold.duration))
        }
        var setUp = ConnectionSetUp(files: files, limits: limits, connections: connections, accessLog: accessLog,
                                    pending: slowReplies, logger: logger)
        setUp.application = runner

        var listeners: [any Channel] = []
        var tlsPort: Int?
        var boundPort: Int
        do {
            // HTTPS first: a redirect names its port.
            if let tls {
                var secure = setUp
                secure.tls = tls.certificates
                let (listener, port) = try await Self.listen(host: host, bindHosts: bindHosts, port: tls.port,
                                                             group: group, limits: limits, setUp: secure)
                listeners.append(listener)
                tlsPort = port
            }
            var plain = setUp
            if let tls, tls.redirectPlain, let tlsPort { plain.redirect = HTTPSRedirect.Target(port: tlsPort, host: tls.host) }
            let (listener, port) = try await Self.listen(host: host, bindHosts: bindHosts, port: port,
                                                         group: group, limits: limits, setUp: plain)
            listeners.append(listener)
            boundPort = port
        } catch {
            for listener in listeners { try? await listener.close() }
            await runner?.shutDown()
            try? await fileThread.shutdownGracefully()
            try? await group.shutdownGracefully()
            throw error
        }
        self.port = boundPort
        self.tlsPort = tlsPort
        self.listeners = listeners
        self.group = group
        self.fileThread = fileThread
        self.connections = connections
        self.cache = cache
        self.slowReplies = slowReplies
        self.application = runner
    }

    /// A listener on `port` of the first of `bindHosts` that has the
    /// address family, and the port it got.
    private static func listen(host: String, bindHosts: [String], port: Int, group: MultiThreadedEventLoopGroup,
                               limits: Limits, setUp: ConnectionSetUp) async throws(StartError) -> (any Channel, Int) {
        var failure: (any Error)?
        for bindHost in bindHosts {
            do {
                let bound = try await bootstrap(group: group, limits: limits, setUp: setUp).bind(host: bindHost, port: port).get()
                if let boundPort = bound.localAddress?.port { return (bound, boundPort) }
                try? await bound.close()
            } catch {
                failure = failure ?? error
                // Another host only when the address family is missing (`*`
                // on a machine without IPv6), not when the port is taken.
                guard let code = (error as? IOError)?.errnoCode, code == EAFNOSUPPORT || code == EADDRNOTAVAIL else { break }
            }
        }
        throw .cannotListen(host: host, port: port, reason: failure.map(reason) ?? "no address")
    }

    /// One event loop thread per core: each answers its own connections'
    /// pages from memory. (On 2 cores with wrk beside it, 2 loops served
    /// 18.9k pages/s where 1 served 10.5k.)
    static var loopThreads: Int { max(1, System.coreCount) }

    /// Stops listening, closes idle connections at once, lets responses in
    /// progress finish for up to `grace`, then closes whatever is left and
    /// ends the threads. Hostile connections (a head trickling in, a huge
    /// header) count as idle, so they do not hold it up. Safe to call more
    /// than once; later calls wait for the first.
    public func stop(grace: Duration = .milliseconds(500)) async {
        let task = stopping.withLock { task in
            if let task { return task }
            let started = Task { await self.shutDown(grace: grace) }
            task = started
            return started
        }
        await task.value
    }

    private func shutDown(grace: Duration) async {
        for listener in listeners { try? await listener.close() }
        let connections = self.connections
        connections.quiesce()
        let forced = group.next().scheduleTask(in: TimeAmount(grace)) { connections.closeAll() }
        await connections.drained()
        forced.cancel()
        // A reply still being made writes on its loop: the loops stay
        // until it is done (a health check gives up within its second).
        await slowReplies.drained()
        await application?.shutDown()
        try? await fileThread.shutdownGracefully()
        try? await group.shutdownGracefully()
    }

    private static func bootstrap(group: MultiThreadedEventLoopGroup, limits: Limits, setUp: ConnectionSetUp) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            // NIO accepts up to 4 connections per wakeup and the cap is
            // checked between wakeups: one at a time keeps it exact.
            .serverChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackstop(limit: limits.maxConnections + 64))
                }
            }
            // A client that sends its request and closes its side still
            // gets the answer.
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try setUp.configure(channel) }
            }
    }

    /// A start failure in words: "Address already in use" rather than
    /// NIO's whole call description.
    private static func reason(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        return "\(error)"
    }
}
