import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// `/metrics` over HTTP, on a listener and an event loop thread of its
/// own: `blogd serve --metrics PORT`.
///
/// Apart from the page server so that a crowd reading pages (or holding
/// its connections) cannot keep the operator from the figures, and small
/// so that nobody can use it to take the server's resources: a request
/// head of a few KiB at most, a handful of connections at once (the
/// rest wait in a short backlog), one request per connection, and the
/// step deadline of the page server. What it answers is `body`, made
/// afresh for each request: BlogWeb knows nothing of the metrics
/// themselves.
///
///     let metrics = try await MetricsServer(host: "127.0.0.1", port: 9151, logger: logger) {
///         registry.emitToBuffer()
///     }
///     print(metrics.port)
///     // ... until SIGTERM:
///     await metrics.stop()
public final class MetricsServer: Sendable {
    /// The port it listens on (the real one when asked for 0).
    public let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel

    /// The path it answers.
    public static let path = "/metrics"

    /// Starts listening on `host` (`127.0.0.1`, `localhost`, `*`, or an
    /// IPv4 or IPv6 address) and `port` (0 for any free one); returns once
    /// it listens.
    public init(host: String, port: Int, logger: Logger, limits: Limits = Limits(),
                body: @escaping @Sendable () -> [UInt8]) async throws(StartError) {
        guard let bindHosts = ListenHost.bindHosts(for: host) else { throw .badHost(host) }
        guard (0...65535).contains(port) else { throw .cannotListen(host: host, port: port, reason: "no such port") }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var failure: (any Error)?
        var bound: (any Channel)?
        for bindHost in bindHosts {
            do {
                bound = try await Self.bootstrap(group: group, limits: limits, logger: logger, body: body)
                    .bind(host: bindHost, port: port).get()
                break
            } catch {
                failure = failure ?? error
                guard let code = (error as? IOError)?.errnoCode, code == EAFNOSUPPORT || code == EADDRNOTAVAIL else { break }
            }
        }
        guard let bound, let boundPort = bound.localAddress?.port else {
            try? await group.shutdownGracefully()
            let reason = (failure as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? failure.map { "\($0)" }
            throw .cannotListen(host: host, port: port, reason: reason ?? "no address")
        }
        self.port = boundPort
        self.listener = bound
        self.group = group
    }

    /// Stops listening and closes every connection. Safe to call more than once.
    public func stop() async {
        try? await listener.close()
        try? await group.shutdownGracefully()
    }

    private static func bootstrap(group: MultiThreadedEventLoopGroup, limits: Limits, logger: Logger,
                                  body: @escaping @Sendable () -> [UInt8]) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 16)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackstop(limit: limits.maxConnections))
                }
            }
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    var decoderLimits = NIOHTTPDecoderLimitConfiguration()
                    decoderLimits.maxHeaderFieldSize = limits.maxHeaderBytes
                    decoderLimits.maxHeaderListSize = limits.maxHeaderBytes
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false,
                                                             withOutboundHeaderValidation: false,
                                                             withEncoderConfiguration: .init(),
                                                             withDecoderLimitConfiguration: decoderLimits)
                    try pipeline.addHandler(BadRequestHandler())
                    try pipeline.addHandler(RequestDeadlineHandler(timeout: TimeAmount(limits.timeout)))
                    try pipeline.addHandler(MetricsResponder(body: body, logger: logger))
                }
            }
    }
}
