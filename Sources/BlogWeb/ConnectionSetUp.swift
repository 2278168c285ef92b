import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// How each connection's pipeline is made: NIO's HTTP/1 codec with the
/// header limits and its pipelining assistance (one request at a time),
/// then the handlers for bad requests, deadlines and the connection list,
/// then the one that answers.
struct ConnectionSetUp: Sendable {
    let files: PublicFolderHandler
    let limits: WebServer.Limits
    let connections: OpenConnections
    let accessLog: Logger?
    let pending: PendingCount
    let logger: Logger
    /// Speak TLS with these (an HTTPS listener).
    var tls: TLSCertificates?
    /// Answer with a redirect to HTTPS there (a plain listener when told
    /// to send everyone to HTTPS).
    var redirect: HTTPSRedirect.Target?
    /// The web client and Micropub, when served.
    var application: ApplicationRunner?

    /// Sets up `channel`'s pipeline; on its event loop.
    func configure(_ channel: any Channel) throws {
        var decoderLimits = NIOHTTPDecoderLimitConfiguration()
        decoderLimits.maxHeaderFieldSize = limits.maxHeaderBytes
        decoderLimits.maxHeaderListSize = limits.maxHeaderBytes
        let pipeline = channel.pipeline.syncOperations
        // The context of now: a reload reaches the connections made after it.
        if let tls { try pipeline.addHandler(NIOSSLServerHandler(context: tls.context)) }
        // No reading while the client does not read our answers: with the
        // responder holding the next request, what one connection makes
        // the server buffer stays within the write watermarks and a page.
        try pipeline.addHandler(BackPressureHandler())
        // Error handling is BadRequestHandler's; the headers are ours, made
        // valid, so the encoder need not check them again.
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: false,
                                                 withOutboundHeaderValidation: false, withEncoderConfiguration: .init(),
                                                 withDecoderLimitConfiguration: decoderLimits)
        try pipeline.addHandler(RequestCounter())
        try pipeline.addHandler(BadRequestHandler(secure: tls != nil))
        try pipeline.addHandler(RequestDeadlineHandler(timeout: TimeAmount(limits.timeout)))
        try pipeline.addHandler(connections.tracker())
        try pipeline.addHandler(PageResponder(files: files, accessLog: accessLog, pending: pending, logger: logger,
                                              redirect: redirect, application: application, secure: tls != nil))
    }
}
