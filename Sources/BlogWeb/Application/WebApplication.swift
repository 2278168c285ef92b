import HTTPTypes

/// What the web server hands to an application instead of the public
/// folder: the web client's forms and Micropub, whose answers depend on
/// who asks and change the blog.
///
/// The server reads the whole body first (up to `bodyLimit(for:)`, else
/// `413`, worded by `answer(_:to:)`), then calls `respond(to:)` on a
/// thread of its own: it may block (a password hash, a commit), never on
/// an event loop.
///
///     struct Hello: WebApplication {
///         func handles(path: String) -> Bool { path == "/hello" }
///         func bodyLimit(path: String) -> Int { 0 }
///         func respond(to request: WebRequest) -> WebResponse {
///             WebResponse(status: .ok, contentType: "text/plain", body: Array("hi".utf8))
///         }
///     }
public protocol WebApplication: Sendable {
    /// Whether requests to `path` (as sent, without the query) are the
    /// application's; asked on the request's head, before its body.
    func handles(path: String) -> Bool

    /// Whether this request is the application's, asked on its head
    /// (method, path, `Accept`) before its body: an application may take
    /// a page of the public folder when the client asks for another
    /// representation of it (a blog page's ActivityPub JSON). Runs on an
    /// event loop for every request: it must be cheap and not block.
    /// Default: `handles(path:)`.
    func handles(head: WebRequestHead) -> Bool

    /// Whether `handles(head:)` takes some of the public folder's pages by
    /// their `Accept`: then every page's reply says `Vary: Accept`, so
    /// that a cache keeps the two representations apart. Default: false.
    var negotiatesPages: Bool { get }

    /// The most bytes of body any request to `path` may carry.
    func bodyLimit(path: String) -> Int

    /// The most bytes of body this request may carry, asked on its head
    /// (`request.body` is empty): a declared length over it is refused
    /// `413` before a byte is read. It may depend on the content type (a
    /// form is smaller than an upload); at most `bodyLimit(path:)`.
    func bodyLimit(for request: WebRequest) -> Int

    /// Bytes past `bodyLimit(for:)` that the server reads and drops
    /// before it hands the request over, marked
    /// `WebRequest.discardedBodyBytes`; a body longer still is refused
    /// `413` (on its head when declared so). A browser that gets its
    /// answer while it still sends shows a reset connection, not the
    /// answer: reading on lets a form over its limit get a page that
    /// keeps what was typed. 0 (the default): refused as soon as over.
    /// Runs on an event loop: it must not block.
    func discardLimit(for request: WebRequest) -> Int

    /// The answer to a request the server refuses itself (see
    /// `WebRefusal`), in the application's own form; runs on an event
    /// loop: it must not block. Default: the refusal as plain text.
    func answer(_ refusal: WebRefusal, to request: WebRequest) -> WebResponse

    /// The answer; may block.
    func respond(to request: WebRequest) -> WebResponse

    /// Whether answering waits for a password hash (a login): such
    /// requests run on threads of their own, so that a queue of logins
    /// never holds up the application's other pages.
    func waitsForPasswordHash(_ request: WebRequest) -> Bool

    /// A refusal given on the request's head, before its body is read
    /// (`request.body` is empty): an upload over its address's budget
    /// costs the server no bytes. Runs on an event loop: it must not block.
    func refusal(beforeReading request: WebRequest) -> WebResponse?
}

extension WebApplication {
    public func handles(head: WebRequestHead) -> Bool { handles(path: head.path) }
    public var negotiatesPages: Bool { false }
    public func waitsForPasswordHash(_ request: WebRequest) -> Bool { false }
    public func refusal(beforeReading request: WebRequest) -> WebResponse? { nil }
    public func bodyLimit(for request: WebRequest) -> Int { bodyLimit(path: request.path) }
    public func discardLimit(for request: WebRequest) -> Int { 0 }
    public func answer(_ refusal: WebRefusal, to request: WebRequest) -> WebResponse { refusal.plainResponse }
}

/// What the server knows of a request when it chooses who answers it:
/// its method, its path (as sent, without the query) and its `Accept`.
public struct WebRequestHead: Sendable, Equatable {
    public var method: HTTPRequest.Method
    public var path: String
    /// The `Accept` field, its lines joined with `, `; nil when none.
    public var accept: String?

    public init(method: HTTPRequest.Method, path: String, accept: String? = nil) {
        self.method = method
        self.path = path
        self.accept = accept
    }
}

/// One request for a `WebApplication`, body included.
public struct WebRequest: Sendable {
    public var method: HTTPRequest.Method
    /// The path as sent (no decoding), without the query.
    public var path: String
    /// What follows `?` in the target, as sent; empty when none.
    public var query: String
    public var headers: HTTPFields
    public var body: [UInt8]
    /// The client's IP address, as text.
    public var peerAddress: String
    /// It came over TLS.
    public var secure: Bool
    /// Bytes of body the server read past the application's limit and
    /// dropped (`WebApplication.discardLimit(for:)`): `body` then holds
    /// only the first `bodyLimit(for:)` bytes.
    public var discardedBodyBytes: Int = 0

    /// What `WebApplication.handles(head:)` is asked with.
    public var head: WebRequestHead {
        let accept = headers[values: .accept]
        return WebRequestHead(method: method, path: path, accept: accept.isEmpty ? nil : accept.joined(separator: ", "))
    }

    public init(method: HTTPRequest.Method, path: String, query: String = "", headers: HTTPFields = [:],
                body: [UInt8] = [], peerAddress: String = "127.0.0.1", secure: Bool = false) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.peerAddress = peerAddress
        self.secure = secure
    }
}

/// A `WebApplication`'s answer.
public struct WebResponse: Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var headers: HTTPFields
    public var body: [UInt8]

    public init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a body of that type.
    public init(status: HTTPResponse.Status, contentType: String, body: [UInt8], headers: HTTPFields = [:]) {
        var fields = headers
        fields[.contentType] = contentType
        self.init(status: status, headers: fields, body: body)
    }
}
