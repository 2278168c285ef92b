import NIOCore
import NIOHTTP1

/// Answers a request the HTTP parser rejects and closes the connection at
/// once: `431` when the request line or a header is over the limit, `400`
/// for anything else malformed.
///
/// Answering `400` and only half-closing would keep the connection (and
/// read whatever the client goes on sending) until the client closes or
/// the timeout fires; a client that sent a 512 KiB header has no claim to
/// that. After the first error the parser drops all input,
/// so nothing more reaches the request handler.
///
/// It sits after the HTTP codec, which passes the parser's error on.
final class BadRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Requests whose head came in and whose response is not complete.
    private var open = 0
    private var closing = false
    /// The connection speaks TLS: its answer carries
    /// `Strict-Transport-Security`, as every HTTPS reply does.
    private let secure: Bool

    init(secure: Bool = false) {
        self.secure = secure
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { open += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { open -= 1 }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            if !closing { context.fireErrorCaught(error) }
            return
        }
        guard !closing else { return }
        closing = true
        // A head cut off by the close itself: no one to answer.
        guard context.channel.isActive else { return }
        // Mid-response, a reply of ours would land inside the handler's.
        guard open == 0 else {
            context.close(promise: nil)
            return
        }
        let status: HTTPResponseStatus = parserError == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
        var headers: HTTPHeaders = ["connection": "close", "content-length": "0"]
        if secure { headers.add(name: "strict-transport-security", value: PageResponder.strictTransportSecurity) }
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
