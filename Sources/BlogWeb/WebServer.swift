import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// The public folder over HTTP: `blogd serve --http PORT`.
///
/// Hummingbird's HTTP/1 server core on a NIO event loop thread of its own,
/// with a thread of its own for reading files: nothing of it runs on
/// Dispatch or on Swift's global executor, where the blog protocol's
/// requests run. It installs no signal handlers (it is not run in a
/// service group); blogd's own handling stops it through `stop()`.
///
///     let web = try await WebServer(folder: URL(fileURLWithPath: "public"),
///                                   host: "*", port: 8080, logger: logger)
///     print(web.port)
///     // ... until SIGTERM:
///     await web.stop()
public final class WebServer: Sendable {
    /// The port it listens on (the real one when asked for 0).
    public let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let fileThread: NIOThreadPool
    private let server: Server<HTTP1Channel>
    private let running: Task<Void, Never>
    private let connections: OpenConnections
    private let stopping = Mutex<Task<Void, Never>?>(nil)

    /// Connections open right now (for tests).
    var openConnections: Int { connections.count }

    /// Since the start: connections closed over the per-address limit (or
    /// with none idle to evict), and idle ones evicted for newcomers.
    public var refusals: (refused: Int, evicted: Int) { connections.refusals }

    /// Starts serving `folder` on `host` (`*` for every address, IPv4 and
    /// IPv6; `localhost`; or an IPv4 or IPv6 address) and `port` (0 for
    /// any free one); returns once it listens. Call `stop()` when done.
    /// `health`, when given, answers `/healthz` (see `PublicFolderHandler`);
    /// it may block: it runs on a thread of its own, one at a time, and
    /// one that has not answered within a second is a 503 (`HealthProbe`).
    /// With `accessLog`, each request is logged there at info level, one
    /// line: method, path, status, body bytes, milliseconds, the peer.
    public init(folder: URL, host: String, port: Int, logger: Logger, limits: Limits = Limits(),
                health: (@Sendable () -> Bool)? = nil, accessLog: Logger? = nil) async throws(StartError) {
        guard let bindHosts = ListenHost.bindHosts(for: host) else { throw .badHost(host) }
        guard (0...65535).contains(port) else { throw .cannotListen(host: host, port: port, reason: "no such port") }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let fileThread = NIOThreadPool(numberOfThreads: 1)
        fileThread.start()
        let connections = OpenConnections(maxConnections: limits.maxConnections,
                                          maxPerAddress: limits.maxConnectionsPerAddress)
        // Never on the file thread: a database that hangs would stop the pages.
        let healthy = health.map { HealthProbe(limit: 1, $0).check }
        // Pages kept in memory are served from the event loop after one
        // stat; reading and compressing go to the file thread.
        let cache = FileCache(folder: folder.path, capacity: limits.cacheBytes)
        let files = PublicFolderHandler(folder: folder, files: CachedFiles(cache: cache, thread: fileThread), health: healthy)
        let channel = Self.channel(files: files, limits: limits, connections: connections, accessLog: accessLog)
        // Hummingbird announces its start at info level, in words the
        // tests' "listening on" search would take for the blog port.
        var quiet = logger
        if quiet.logLevel < .warning { quiet.logLevel = .warning }

        let launched: Launched
        switch await Self.launch(channel, hosts: bindHosts, port: port, limits: limits, group: group, logger: quiet) {
        case .success(let started):
            launched = started
        case .failure(let error):
            try? await fileThread.shutdownGracefully()
            try? await group.shutdownGracefully()
            throw .cannotListen(host: host, port: port, reason: Self.reason(error))
        }
        self.port = launched.port
        self.server = launched.server
        self.running = launched.running
        self.group = group
        self.fileThread = fileThread
        self.connections = connections
    }

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
        let connections = self.connections
        let forced = group.next().scheduleTask(in: TimeAmount(grace)) { connections.closeAll() }
        try? await server.shutdownGracefully()
        forced.cancel()
        // Every connection's task has ended: nothing is left to run on the
        // loop, which may go now.
        await running.value
        try? await fileThread.shutdownGracefully()
        try? await group.shutdownGracefully()
    }

    /// How each connection is set up: Hummingbird's HTTP/1 pipeline with
    /// the header limits, plus the handlers for bad requests, deadlines
    /// and the connection list.
    private static func channel(files: PublicFolderHandler, limits: Limits, connections: OpenConnections,
                                accessLog: Logger?) -> HTTP1Channel {
        let timeout = TimeAmount(limits.timeout)
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [BadRequestHandler(), RequestDeadlineHandler(timeout: timeout), connections.tracker()],
            idleTimeout: timeout,
            httpDecoderConfiguration: .init(maxHeaderFieldSize: limits.maxHeaderBytes, maxHeaderListSize: limits.maxHeaderBytes))
        return HTTP1Channel(responder: { request, writer, channel in
            let started = ContinuousClock.now
            let reply = await files.reply(method: request.method, path: request.uri.path, fields: request.headers)
            defer {
                if let accessLog {
                    // The path as sent, but never a control character into the log.
                    let path = String(request.uri.path.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) })
                    let (seconds, attoseconds) = (ContinuousClock.now - started).components
                    let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
                    accessLog.info("\(request.method) \(path) \(reply.status.code) \(reply.body.readableBytes)", metadata: [
                        "ms": "\((milliseconds * 10).rounded() / 10)",
                        "peer": "\(channel.remoteAddress?.ipAddress ?? "-")",
                    ])
                }
            }
            var head = HTTPResponse(status: reply.status, headerFields: reply.headers)
            head.headerFields[.date] = HTTPDate.format(Int(time(nil)))
            if reply.body.readableBytes == 0 {
                try await writer.writeResponse(head)
            } else {
                try await writer.write(response: head, body: ResponseBody(byteBuffer: reply.body))
            }
        }, configuration: configuration)
    }

    private struct Launched {
        let server: Server<HTTP1Channel>
        let running: Task<Void, Never>
        let port: Int
    }

    private enum StartEvent {
        case listening(port: Int)
        case failed(any Error)
    }

    /// Starts on the first of `hosts` that works; a later one is tried
    /// only when the address family is missing (`*` on a machine without
    /// IPv6), not when the port is taken.
    private static func launch(_ channel: HTTP1Channel, hosts: [String], port: Int, limits: Limits,
                               group: MultiThreadedEventLoopGroup, logger: Logger) async -> Result<Launched, any Error> {
        var first: Result<Launched, any Error>?
        for host in hosts {
            let result = await launch(channel, host: host, port: port, limits: limits, group: group, logger: logger)
            guard case .failure(let error) = result else { return result }
            first = first ?? result
            guard let code = (error as? IOError)?.errnoCode, code == EAFNOSUPPORT || code == EADDRNOTAVAIL else { break }
        }
        return first ?? .failure(CancellationError())
    }

    /// Starts Hummingbird's server on `host` and waits until it listens or
    /// fails.
    private static func launch(_ channel: HTTP1Channel, host: String, port: Int, limits: Limits,
                               group: MultiThreadedEventLoopGroup, logger: Logger) async -> Result<Launched, any Error> {
        let (events, sink) = AsyncStream.makeStream(of: StartEvent.self)
        let server = Server(
            childChannelSetup: channel,
            configuration: ServerConfiguration(
                address: .hostname(host, port: port),
                // A backstop only: past the cap, a newcomer evicts an idle
                // connection (`OpenConnections`), so accepting goes on; this
                // keeps the descriptors bounded if none is idle.
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections + 64, logger: logger)),
            onServerRunning: { listener in
                // NIO accepts up to 4 connections per wakeup and the cap is
                // checked between wakeups: one at a time keeps it exact.
                try? await listener.setOption(ChannelOptions.maxMessagesPerRead, value: 1).get()
                sink.yield(.listening(port: listener.localAddress?.port ?? port))
            },
            eventLoopGroup: group,
            logger: logger)
        let running = Task(executorPreference: EventLoopExecutor(group.next())) {
            do {
                try await server.run()
            } catch {
                sink.yield(.failed(error))
            }
            sink.finish()
        }
        for await event in events {
            switch event {
            case .listening(let bound): return .success(Launched(server: server, running: running, port: bound))
            case .failed(let error): return .failure(error)
            }
        }
        return .failure(CancellationError())
    }

    /// A start failure in words: "Address already in use" rather than
    /// NIO's whole call description.
    private static func reason(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        return "\(error)"
    }
}
