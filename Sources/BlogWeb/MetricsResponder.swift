import Logging
import NIOCore
import NIOHTTP1

/// Answers the one request of a metrics connection, then closes it:
/// `GET /metrics` (or `HEAD`) gets the figures in Prometheus text format,
/// any other path `404`, any other method `405`.
final class MetricsResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Where a request goes; pure.
    enum Route: Equatable {
        case metrics(withBody: Bool)
        case notFound
        case methodNotAllowed
    }

    /// Prometheus's text exposition format.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let body: @Sendable () -> [UInt8]
    private let logger: Logger
    private var answered = false

    init(body: @escaping @Sendable () -> [UInt8], logger: Logger) {
        self.body = body
        self.logger = logger
    }

    static func route(method: HTTPMethod, target: String) -> Route {
        guard method == .GET || method == .HEAD else { return .methodNotAllowed }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return path == MetricsServer.path ? .metrics(withBody: method == .GET) : .notFound
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data), !answered else { return }
        answered = true
        var headers = HTTPHeaders([("connection", "close")])
        let status: HTTPResponseStatus
        var buffer = ByteBuffer()
        switch Self.route(method: head.method, target: head.uri) {
        case .metrics(let withBody):
            status = .ok
            let bytes = body()
            headers.add(name: "content-type", value: Self.contentType)
            headers.add(name: "content-length", value: String(bytes.count))
            headers.add(name: "cache-control", value: "no-store")
            if withBody { buffer = ByteBuffer(bytes: bytes) }
        case .notFound:
            status = .notFound
            buffer = ByteBuffer(string: "not found: the metrics are at \(MetricsServer.path)\n")
        case .methodNotAllowed:
            status = .methodNotAllowed
            headers.add(name: "allow", value: "GET, HEAD")
            buffer = ByteBuffer(string: "GET and HEAD only\n")
        }
        if status != .ok {
            headers.add(name: "content-type", value: "text/plain; charset=utf-8")
            headers.add(name: "content-length", value: String(buffer.readableBytes))
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if buffer.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A client that closed its side before a whole request: nothing to answer.
        if case ChannelEvent.inputClosed = event, !answered {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("metrics connection ends: \(error)")
        context.close(promise: nil)
    }
}
