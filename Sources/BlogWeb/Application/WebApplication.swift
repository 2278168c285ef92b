import HTTPTypes

/// What the web server hands to an application instead of the public
/// folder: the web client's forms and Micropub, whose answers depend on
/// who asks and change the blog.
///
/// The server reads the whole body first (up to `bodyLimit(path:)`, else
/// `413`), then calls `respond(to:)` on a thread of its own: it may block
/// (a password hash, a commit), never on an event loop.
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

    /// The most bytes of body a request to `path` may carry.
    func bodyLimit(path: String) -> Int

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
    public func waitsForPasswordHash(_ request: WebRequest) -> Bool { false }
    public func refusal(beforeReading request: WebRequest) -> WebResponse? { nil }
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
