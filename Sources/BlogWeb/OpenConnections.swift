import NIOCore
import NIOHTTPTypes
import Synchronization

/// The web server's open connections, so that `stop()` can close the ones
/// a graceful shutdown would wait for (a client that does not read its
/// response keeps its request "in progress" until the timeout).
final class OpenConnections: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// How many are open now.
    var count: Int { channels.withLock { $0.count } }

    /// A handler for a new connection's pipeline that keeps it listed
    /// while it is open.
    func tracker() -> Tracker { Tracker(registry: self) }

    /// Closes every open connection.
    func closeAll() {
        for channel in channels.withLock({ Array($0.values) }) {
            channel.close(promise: nil)
        }
    }

    private func insert(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = channels.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// Passes everything on; it only has to be in the pipeline.
    final class Tracker: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        let registry: OpenConnections

        init(registry: OpenConnections) {
            self.registry = registry
        }

        func handlerAdded(context: ChannelHandlerContext) {
            registry.insert(context.channel)
        }
    }
}
