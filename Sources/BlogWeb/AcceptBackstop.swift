import NIOCore

/// On the listening socket: stops accepting while `limit` accepted
/// connections are open, and starts again when one closes.
///
/// A backstop only: `OpenConnections` decides who stays (past its cap a
/// newcomer evicts an idle connection, so accepting normally goes on);
/// this keeps the descriptors bounded when none is idle. Connections
/// beyond it wait in the kernel's backlog.
final class AcceptBackstop: ChannelDuplexHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    typealias OutboundIn = Never
    typealias OutboundOut = Never

    private let limit: Int
    private var open = 0
    /// A read was held back at the limit.
    private var waiting = false

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        open += 1
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        unwrapInboundIn(data).closeFuture.hop(to: context.eventLoop).whenComplete { _ in
            let (handler, context) = bound.value
            handler.open -= 1
            if handler.waiting && handler.open < handler.limit {
                handler.waiting = false
                context.read()
            }
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        guard open < limit else {
            waiting = true
            return
        }
        context.read()
    }
}
