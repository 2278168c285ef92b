/// The parts of an HTTP request a signature covers, as they arrived.
public struct SignedRequest: Sendable {
    /// As sent (`POST`); signed lowercased.
    public var method: String
    /// The path as sent, no decoding, without the query.
    public var path: String
    /// What follows `?`, as sent; empty when none.
    public var query: String
    /// Every header, in order; names in any case, repeats allowed.
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// The scheme the request was sent to, as the site's base URL has it
    /// (`https` behind a TLS proxy, whatever the socket's): RFC 9421's
    /// `@scheme` and `@target-uri`. draft-cavage signs none.
    public var scheme: String

    public init(method: String, path: String, query: String = "", headers: [(String, String)], body: [UInt8] = [],
                scheme: String = "https") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.scheme = scheme
    }

    /// The request target as sent: path, and `?query` when there is one.
    public var target: String { query.isEmpty ? path : path + "?" + query }

    /// Every value of `name`, in order, each trimmed, joined with ", "
    /// (draft-cavage-12 2.3); nil when the request has none.
    public func header(_ name: String) -> String? {
        let values = headers.filter { $0.0.lowercased() == name }.map {
            $0.1.trimmingCharacters(in: .whitespaces)
        }
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}
