import Foundation

/// An IndieAuth client's identifier, checked as the specification
/// (2022, section 3.2) has it: an `https` or `http` URL with a path, no
/// `.` or `..` segment, no fragment, no user name or password, and a
/// host that is a domain name, or the loopback address 127.0.0.1 or
/// [::1] (no other IP address). Its origin (scheme, host, port) is what
/// a redirect URI must share.
public struct ClientID: Sendable, Hashable, CustomStringConvertible {
    /// The identifier as the app sent it: compared as is at the token
    /// endpoint.
    public let text: String
    /// Lower-case scheme and host, and the port (the scheme's default
    /// when none is given).
    public let scheme: String
    public let host: String
    public let port: Int

    /// The longest identifier (or redirect URI) looked at, in bytes.
    public static let maxLength = 2000

    public init?(_ text: String) {
        guard let url = CheckedURL(text) else { return nil }
        let segments = url.path.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0 == "." || $0 == ".." || $0.lowercased() == "%2e" || $0.lowercased() == "%2e%2e" })
        else { return nil }
        if let address = IPAddressShape(url.host) {
            guard address.isLoopback else { return nil }
        }
        self.text = text
        scheme = url.scheme
        host = url.host
        port = url.port
    }

    /// Whether `uri` is on this client's origin.
    public func sharesOrigin(with uri: RedirectURI) -> Bool {
        uri.scheme == scheme && uri.host == host && uri.port == port
    }

    /// The origin, for a page's `form-action`: `https://app.example:8443`.
    public var origin: String { Self.origin(scheme: scheme, host: host, port: port) }

    static func origin(scheme: String, host: String, port: Int) -> String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        return "\(scheme)://\(shownHost)" + (port == defaultPort ? "" : ":\(port)")
    }

    public var description: String { text }
}

/// Where the browser is sent back to: an `https` or `http` URL without a
/// fragment or user name or password. Whether it may be used for a
/// client is `ClientID.sharesOrigin(with:)` or the client's published
/// list (`ClientInfo.redirectURIs`).
public struct RedirectURI: Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public let scheme: String
    public let host: String
    public let port: Int

    public init?(_ text: String) {
        guard let url = CheckedURL(text) else { return nil }
        self.text = text
        scheme = url.scheme
        host = url.host
        port = url.port
    }

    /// The URI with `fields` added to its query (the code, the state,
    /// the issuer), each percent-encoded.
    public func adding(_ fields: [(String, String)]) -> String {
        let encoded = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        guard !encoded.isEmpty else { return text }
        let separator = text.contains("?") ? (text.hasSuffix("?") || text.hasSuffix("&") ? "" : "&") : "?"
        return text + separator + encoded
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    public var origin: String { ClientID.origin(scheme: scheme, host: host, port: port) }

    public var description: String { text }
}

/// What both kinds of URL must be: parsed, `https` or `http`, a host, a
/// path, no fragment, no user name or password, printable ASCII only
/// (an app sends its URLs percent-encoded), within `ClientID.maxLength`.
struct CheckedURL {
    let scheme: String
    let host: String
    let port: Int
    let path: String

    init?(_ text: String) {
        guard (1...ClientID.maxLength).contains(text.utf8.count),
              text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }),
              !text.contains("#"),
              let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              components.user == nil, components.password == nil, components.fragment == nil,
              var host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        // "//" right after the scheme: an authority, never a path-only URL.
        guard text.dropFirst(scheme.count).hasPrefix("://") else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard host.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || "-.:".unicodeScalars.contains($0) })
        else { return nil }
        let path = components.percentEncodedPath
        guard path.hasPrefix("/") else { return nil }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
    }
}

/// A host that is an IP address rather than a name: IPv6 (any `:`) or
/// dotted IPv4 digits.
struct IPAddressShape {
    let isLoopback: Bool

    init?(_ host: String) {
        if host.contains(":") {
            // Only the one spelling of ::1 is taken for loopback; others
            // ("0:0::1") are refused as addresses.
            isLoopback = host == "::1"
            return
        }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) || host.allSatisfy({ $0.isNumber || $0 == "." })
        else { return nil }
        isLoopback = host == "127.0.0.1"
    }
}
