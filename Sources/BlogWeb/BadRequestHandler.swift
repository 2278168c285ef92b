import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request the HTTP parser rejects and closes the connection at
/// once: `431` when the request line or a header is over the limit, `400`
/// for anything else malformed.
///
/// Hummingbird would answer `400` and then only half-close, keeping the
/// connection (and reading whatever the client goes on sending) until the
/// client closes or the timeout fires; a client that sent a 512 KiB header
/// has no claim to that. After the first error the parser drops all input,
/// so nothing more reaches the request handler.
///
/// It sits after the HTTP codec, which passes the parser's error on.
final class BadRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Requests whose head came in and whose response is not complete.
    private var open = 0
    private var closing = false

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
        // Mid-response, a reply of ours would land inside the handler's.
        guard open == 0 else {
            context.close(promise: nil)
            return
        }
        let status: HTTPResponse.Status = parserError == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
        let head = HTTPResponse(status: status, headerFields: [.connection: "close", .contentLength: "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
