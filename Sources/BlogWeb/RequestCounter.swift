import Metrics
import NIOCore
import NIOHTTP1
import Synchronization

/// Counts the page server's answers by method and status code, as each
/// answer's head leaves: whichever handler made it (a file, the web
/// client, a bad request's 400, a deadline's 408).
///
///     blogd_http_requests_total{code="200",method="GET"} 1042
///
/// Both labels are bounded whatever clients send: the method is one of a
/// few known ones or `other`, and the status is the server's own.
final class RequestCounter: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The metric's name (its help text is blogd's, with the others').
    static let name = "blogd_http_requests_total"
    static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    private static let counters = Mutex<[String: Counter]>([:])

    /// Methods of the requests not answered yet: one at a time behind
    /// NIO's pipelining assistance.
    private var waiting = CircularBuffer<String>(initialCapacity: 2)

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            waiting.append(Self.methods.contains(head.method.rawValue) ? head.method.rawValue : "other")
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // An interim answer (100 Continue) is not the request's answer.
        if case .head(let head) = unwrapOutboundIn(data), head.status.code >= 200 {
            // None waiting: a request that never parsed (the 400 of a bad one).
            Self.count(method: waiting.popFirst() ?? "other", code: head.status.code)
        }
        context.write(data, promise: promise)
    }

    static func count(method: String, code: UInt) {
        let key = "\(method) \(code)"
        let counter = counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: name, dimensions: [("method", method), ("code", String(code))])
            counters[key] = counter
            return counter
        }
        counter.increment()
    }
}
