import NIOCore
import NIOHTTP1

/// Closes a connection that completes no step within the timeout.
///
/// A step is: a whole request read (head and body), a whole response
/// handed to the kernel, or, after a response, the next whole request.
/// An idle timeout that counts decoded HTTP parts, and takes a response
/// as done once its last part is queued, would cut off a silent client
/// and one that trickles its head, but a trickled body moves it on with
/// every part, and a response queued behind one the client does not read
/// (pipelined requests) stays "in progress", which it never times out.
/// This one timer covers all of them.
///
/// It sits after the HTTP codec, so it sees requests and responses as
/// parts.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount
    /// When the connection closes unless a step completes first.
    private var deadline = NIODeadline.distantFuture
    /// Fires at the deadline, or earlier: a step moves the deadline on
    /// without touching the timer (a request's steps would otherwise
    /// cancel and schedule one twice), and the timer, when it fires
    /// early, sets itself again for the deadline.
    private var timer: Scheduled<Void>?
    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { restart(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
    }

    func channelActive(context: ChannelHandlerContext) {
        restart(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { restart(context) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        // The response is done when its last byte is in the kernel, not
        // when it is queued: a client that stops reading stalls it here.
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.assumeIsolated().whenSuccess { [self] in
            if context.channel.isActive { restart(context) }
        }
        context.write(data, promise: written)
    }

    private func restart(_ context: ChannelHandlerContext) {
        deadline = .now() + timeout
        if timer == nil { arm(context) }
    }

    private func arm(_ context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            if NIODeadline.now() < deadline {
                arm(context)
            } else {
                context.close(promise: nil)
            }
        }
    }

    private func cancel() {
        timer?.cancel()
        timer = nil
    }
}
