import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1

/// Answers the requests of one connection, one at a time (the HTTP
/// pipeline handler before it holds back the next request until the
/// response is written).
///
/// A page kept in memory, or any refusal, is answered at once on the
/// event loop, with no task and no hop: that is nearly every request of
/// a busy server. The rest (a file to read or gzip, the health check)
/// runs as a task on the same event loop (`EventLoopExecutor`), never on
/// Swift's global executor, and is written when it is ready; `pending`
/// counts those, so that `WebServer.stop()` waits for them before the
/// loop goes.
///
/// It answers a request as soon as its head is in (a body, which no
/// request here needs, is read and dropped), and closes the connection
/// after a response when the client asked (`Connection: close`,
/// HTTP/1.0) or has closed its side.
final class PageResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let files: PublicFolderHandler
    private let accessLog: Logger?
    private let pending: PendingCount
    private let logger: Logger
    /// A response is being made or written.
    private var responding = false
    /// Close once the response in progress is written.
    private var closeAfterResponse = false
    /// A request that came while the client was not reading our answers:
    /// answered once the channel is writable again, so a client that
    /// pipelines requests and never reads holds one response, not all.
    private var held: HTTPRequestHead?

    /// Send every request but the health check to HTTPS there.
    private let redirect: HTTPSRedirect.Target?
    /// The web client and Micropub, when served.
    private let application: ApplicationRunner?
    /// The connection speaks TLS (the application sets `Secure` cookies).
    private let secure: Bool
    /// An application request whose body is being read.
    private var upload: Upload?

    init(files: PublicFolderHandler, accessLog: Logger?, pending: PendingCount, logger: Logger,
         redirect: HTTPSRedirect.Target? = nil, application: ApplicationRunner? = nil, secure: Bool = false) {
        self.files = files
        self.redirect = redirect
        self.application = application
        self.secure = secure
        self.logger = logger
        self.accessLog = accessLog
        self.pending = pending
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let head: HTTPRequestHead
        switch unwrapInboundIn(data) {
        case .head(let part): head = part
        case .body(let part):
            read(part, context: context)
            return
        case .end:
            if let upload {
                self.upload = nil
                respond(to: upload, context: context)
            }
            return
        }
        responding = true
        if redirect == nil, let application, application.application.handles(head: Request.webHead(head)) {
            begin(head, application, context: context)
            return
        }
        guard context.channel.isWritable else {
            held = head
            return
        }
        answer(head, context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // A closing channel turns writable as its writes fail: nothing to
        // answer then (a reply started now could outlive the server's stop).
        if context.channel.isWritable, context.channel.isActive, let head = held {
            held = nil
            answer(head, context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        held = nil
        if let upload {
            self.upload = nil
            application?.bodies.release(upload.reserved, for: upload.web.peerAddress)
        }
        context.fireChannelInactive()
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let request = Request(head)
        closeAfterResponse = closeAfterResponse || !head.isKeepAlive
        if let redirect, request.path != "/healthz" {
            send(HTTPSRedirect.reply(to: head, target: redirect), to: request, context: context)
            return
        }
        if let reply = files.immediateReply(method: request.method, path: request.path, fields: request.fields) {
            send(reply, to: request, context: context)
            return
        }
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        let files = files
        let pending = pending
        pending.enter()
        Task(executorPreference: EventLoopExecutor(loop)) {
            let reply = await files.reply(method: request.method, path: request.path, fields: request.fields)
            loop.execute {
                defer { pending.leave() }
                let (handler, context) = bound.value
                guard context.channel.isActive else { return }
                handler.send(reply, to: request, context: context)
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case ChannelEvent.inputClosed = event else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // The client sent all it will: answer what is in progress, then go.
        if responding {
            closeAfterResponse = true
        } else {
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Parse errors were answered before this handler; what is left
        // (a reset, a failed write) ends the connection.
        logger.debug("HTTP connection ends: \(error)")
        context.close(promise: nil)
    }

    /// Starts reading an application request's body, or refuses it at
    /// once when its declared length is over the limit.
    private func begin(_ head: HTTPRequestHead, _ application: ApplicationRunner, context: ChannelHandlerContext) {
        let request = Request(head)
        closeAfterResponse = closeAfterResponse || !head.isKeepAlive
        let peer = context.channel.remoteAddress?.ipAddress ?? "-"
        var fields = HTTPFields()
        for (name, value) in head.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let target = head.uri
        let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } ?? ""
        let web = WebRequest(method: request.method, path: request.path, query: query, headers: fields,
                             peerAddress: peer, secure: secure)
        let limit = application.application.bodyLimit(for: web)
        let discard = max(0, application.application.discardLimit(for: web))
        let declared = head.headers.first(name: "content-length").flatMap { Int($0) }
        if let declared, declared > limit + discard {
            // Its body is never read: the connection cannot go on.
            closeAfterResponse = true
            send(refusal(.tooLarge(limit: limit), web, application), to: request, context: context)
            return
        }
        if let refused = application.application.refusal(beforeReading: web) {
            // Its body is never read: the connection cannot go on. Held for
            // a moment first, as the blog port holds err:BUSY: a flood that
            // reconnects at once would otherwise cost the server an accept
            // and a close a millisecond, from every thread it has.
            closeAfterResponse = true
            sendHeld(PublicFolderHandler.Reply(refused, withBody: request.method != .head), to: request, context: context,
                     for: application.refusalDelay)
            return
        }
        if head.headers.first(name: "expect")?.lowercased() == "100-continue" {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
        }
        // Room is taken as the bytes come, not as declared: a client that
        // announces a large body and sends none holds nothing.
        upload = Upload(request: request, limit: limit, discard: discard, reserved: 0, web: web)
    }

    /// The application's words for a refusal of the server's own.
    private func refusal(_ reason: WebRefusal, _ web: WebRequest, _ application: ApplicationRunner) -> PublicFolderHandler.Reply {
        PublicFolderHandler.Reply(application.application.answer(reason, to: web), withBody: web.method != .head)
    }

    /// One part of an application request's body; a body over the limit
    /// (and what may be dropped past it) is refused as soon as it is, and
    /// the rest is not read. Bytes past the limit are counted, not kept.
    private func read(_ part: ByteBuffer, context: ChannelHandlerContext) {
        guard var current = upload, let application else { return }
        upload = nil
        let kept = current.web.body.count
        let incoming = part.readableBytes
        guard kept + current.web.discardedBodyBytes + incoming <= current.limit + current.discard else {
            application.bodies.release(current.reserved, for: current.web.peerAddress)
            closeAfterResponse = true
            send(refusal(.tooLarge(limit: current.limit), current.web, application), to: current.request, context: context)
            return
        }
        let taken = min(incoming, max(0, current.limit - kept))
        if kept + taken > current.reserved {
            guard application.bodies.reserve(kept + taken - current.reserved, for: current.web.peerAddress) else {
                application.bodies.release(current.reserved, for: current.web.peerAddress)
                closeAfterResponse = true
                send(refusal(.tooManyBodies, current.web, application), to: current.request, context: context)
                return
            }
            current.reserved = kept + taken
        }
        current.web.body.append(contentsOf: part.readableBytesView.prefix(taken))
        current.web.discardedBodyBytes += incoming - taken
        upload = current
    }

    private func respond(to upload: Upload, context: ChannelHandlerContext) {
        guard let application else { return }
        guard let answer = application.run(upload.web, on: context.eventLoop) else {
            application.bodies.release(upload.reserved, for: upload.web.peerAddress)
            send(refusal(.busy, upload.web, application), to: upload.request, context: context)
            return
        }
        pending.enter()
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let method = upload.request.method
        answer.whenComplete { [pending] result in
            defer { pending.leave() }
            // The body is gone with the request it came in.
            application.bodies.release(upload.reserved, for: upload.web.peerAddress)
            let (handler, context) = bound.value
            guard context.channel.isActive else { return }
            let reply: PublicFolderHandler.Reply
            switch result {
            case .success(let response): reply = PublicFolderHandler.Reply(response, withBody: method != .head)
            case .failure: reply = handler.refusal(.stopping, upload.web, application)
            }
            guard reply.status == .tooManyRequests else {
                handler.send(reply, to: upload.request, context: context)
                return
            }
            // Over its budget (a login flood): held like the blog port's
            // err:BUSY, so that a client retrying at once gains nothing.
            handler.sendHeld(reply, to: upload.request, context: context, for: application.refusalDelay)
        }
    }

    /// Sends `reply` after `delay`, if the connection is still open then;
    /// `pending` counts it meanwhile, so a stop waits for it.
    private func sendHeld(_ reply: PublicFolderHandler.Reply, to request: Request, context: ChannelHandlerContext,
                          for delay: TimeAmount) {
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        pending.enter()
        context.eventLoop.scheduleTask(in: delay) { [pending] in
            defer { pending.leave() }
            let (handler, context) = bound.value
            guard context.channel.isActive else { return }
            handler.send(reply, to: request, context: context)
        }
    }

    /// An application request being read.
    private struct Upload {
        var request: Request
        /// Body bytes kept at most.
        var limit: Int
        /// Bytes past `limit` read and dropped at most.
        var discard: Int
        /// Bytes taken from the runner's `BodyBudget` for it.
        var reserved: Int
        var web: WebRequest
    }

    private func send(_ reply: PublicFolderHandler.Reply, to request: Request, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.reserveCapacity(reply.headers.count + 2)
        for field in reply.headers { headers.add(name: field.name.rawName, value: field.value) }
        headers.add(name: "date", value: HTTPDate.now())
        // Over HTTPS only (RFC 6797 7.2): browsers come back over HTTPS
        // for a year, whatever link they follow.
        if secure { headers.add(name: "strict-transport-security", value: Self.strictTransportSecurity) }
        if closeAfterResponse {
            headers.add(name: "connection", value: "close")
        } else if request.version == .http1_0 {
            headers.add(name: "connection", value: "keep-alive")
        }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: reply.status.code), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if reply.body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(reply.body))), promise: nil)
        }
        responding = false
        if closeAfterResponse {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        if let accessLog { log(reply, request, context, accessLog) }
    }

    /// A year, the common choice; no `includeSubDomains`: other hosts of
    /// the domain are not blogd's to speak for.
    static let strictTransportSecurity = "max-age=31536000"

    private func log(_ reply: PublicFolderHandler.Reply, _ request: Request, _ context: ChannelHandlerContext, _ accessLog: Logger) {
        // The path as sent, but never a control character into the log.
        let path = String(request.path.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) })
        let nanoseconds = NIODeadline.now().uptimeNanoseconds - request.started.uptimeNanoseconds
        let milliseconds = Double(nanoseconds) / 1e6
        accessLog.info("\(request.method) \(path) \(reply.status.code) \(reply.body.readableBytes)", metadata: [
            "ms": "\((milliseconds * 10).rounded() / 10)",
            "peer": "\(context.channel.remoteAddress?.ipAddress ?? "-")",
        ])
    }

    /// What the answer depends on, taken from a request's head.
    struct Request: Sendable {
        var method: HTTPRequest.Method
        /// The path as sent (no decoding), without the query.
        var path: String
        /// Only the fields a reply looks at.
        var fields: HTTPFields
        var version: HTTPVersion
        var started: NIODeadline

        init(_ head: HTTPRequestHead) {
            method = Self.method(of: head)
            path = Self.path(of: head.uri)
            fields = HTTPFields()
            for name in [HTTPField.Name.acceptEncoding, .ifNoneMatch, .ifModifiedSince] {
                let values = head.headers[name.rawName]
                if !values.isEmpty { fields[name] = values.joined(separator: ", ") }
            }
            version = head.version
            started = .now()
        }

        static func method(of head: HTTPRequestHead) -> HTTPRequest.Method {
            switch head.method {
            case .GET: .get
            case .HEAD: .head
            // Any other is refused; an unknown token is refused as POST.
            default: HTTPRequest.Method(head.method.rawValue) ?? .post
            }
        }

        /// What an application is asked whether the request is its own.
        static func webHead(_ head: HTTPRequestHead) -> WebRequestHead {
            let accept = head.headers["accept"]
            return WebRequestHead(method: method(of: head), path: path(of: head.uri),
                                  accept: accept.isEmpty ? nil : accept.joined(separator: ", "))
        }

        /// The path of a request target: origin form (`/a.html?x`) or
        /// absolute form (`http://host/a.html`, as sent to proxies).
        static func path(of target: String) -> String {
            // Byte by byte: Character and Foundation searches cost more
            // than the rest of a request's parsing.
            var rest = Substring(target).utf8
            if rest.first != UInt8(ascii: "/") {
                let slashes = Array("://".utf8)
                guard let colon = rest.indices.first(where: { rest[$0...].starts(with: slashes) }) else { return target }
                rest = rest[rest.index(colon, offsetBy: 3)...]
                guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return "/" }
                rest = rest[slash...]
            }
            if let end = rest.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { rest = rest[..<end] }
            return String(Substring(rest))
        }
    }
}
