import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A tiny HTTP/1.1 server on 127.0.0.1, port 0, for tests of outgoing
/// fetches: each path answers what the test set, and every request seen is
/// kept, so a test waits for the request rather than for time.
///
///     let server = try await LoopbackHTTPServer.start()
///     server.set("/post", .page(body: "<a href=…>"))
///     ... fetch "http://127.0.0.1:\(server.port)/post" ...
///     try await server.close()
public final class LoopbackHTTPServer: Sendable {
    /// What a path answers.
    public enum Reply: Sendable {
        /// A complete response.
        case page(status: Int = 200, headers: [(String, String)] = [("Content-Type", "text/html; charset=utf-8")], body: [UInt8])
        /// No answer at all: the request is read and the connection held open.
        case silence
        /// `chunks` chunks of `chunkSize` bytes, chunked encoding, no length declared.
        case stream(chunkSize: Int, chunks: Int)

        public static func page(_ text: String, status: Int = 200) -> Reply {
            .page(status: status, body: Array(text.utf8))
        }

        public static func redirect(to location: String, status: Int = 302) -> Reply {
            .page(status: status, headers: [("Location", location)], body: [])
        }
    }

    /// One request the server read.
    public struct Seen: Sendable {
        public var method: String
        public var path: String
        public var headers: [(String, String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    private struct State {
        var replies: [String: Reply] = [:]
        var seen: [Seen] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    private let channel: any Channel
    public let port: Int

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    /// Starts a server on 127.0.0.1 on a free port.
    public static func start(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> LoopbackHTTPServer {
        let box = Mutex<LoopbackHTTPServer?>(nil)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(server: box.withLock { $0! }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = LoopbackHTTPServer(channel: channel, port: channel.localAddress!.port!)
        box.withLock { $0 = server }
        return server
    }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// What `path` (without its query) answers from now on; unset paths answer 404.
    public func set(_ path: String, _ reply: Reply) {
        state.withLock { $0.replies[path] = reply }
    }

    /// Every request read so far.
    public var seen: [Seen] { state.withLock { $0.seen } }

    /// Returns once the server has read `count` requests in all.
    public func waitForRequests(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.seen.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    public func close() async throws {
        try await channel.close()
    }

    fileprivate func answer(_ request: Seen) -> Reply {
        let (reply, ready) = state.withLock { state -> (Reply, [CheckedContinuation<Void, Never>]) in
            state.seen.append(request)
            let path = String(request.path.split(separator: "?", maxSplits: 1).first ?? "")
            let reply = state.replies[path] ?? .page("not found", status: 404)
            let ready = state.waiters.filter { $0.count <= state.seen.count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= state.seen.count }
            return (reply, ready)
        }
        ready.forEach { $0.resume() }
        return reply
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let server: LoopbackHTTPServer
        var head: HTTPRequestHead?
        var body: [UInt8] = []

        init(server: LoopbackHTTPServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = []
            case .body(let buffer):
                body.append(contentsOf: buffer.readableBytesView)
            case .end:
                guard let head else { return }
                let seen = Seen(method: head.method.rawValue, path: head.uri,
                                headers: head.headers.map { ($0.name, $0.value) }, body: body)
                respond(server.answer(seen), context: context)
            }
        }

        private func respond(_ reply: Reply, context: ChannelHandlerContext) {
            switch reply {
            case .silence:
                return
            case .page(let status, let headers, let body):
                var fields = HTTPHeaders(headers)
                fields.replaceOrAdd(name: "Content-Length", value: String(body.count))
                let head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: fields)
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            case .stream(let size, let chunks):
                let head = HTTPResponseHead(version: .http1_1, status: .ok,
                                            headers: ["Content-Type": "text/html", "Transfer-Encoding": "chunked"])
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: size)
                for _ in 0..<chunks {
                    context.write(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
                }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
