/// A finished outgoing fetch: the last response after redirects, with its
/// body read in full (within `FetchSettings.maxBytes`).
public struct FetchedResponse: Sendable {
    /// The URL that answered, after redirects.
    public var url: String
    public var status: Int
    /// Header names lowercased; values as sent (repeated headers joined by ", ").
    public var headers: [String: String]
    public var body: [UInt8]

    public init(url: String, status: Int, headers: [String: String], body: [UInt8]) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of a header, by any case of its name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as text (invalid UTF-8 repaired).
    public var text: String { String(decoding: body, as: UTF8.self) }
}
