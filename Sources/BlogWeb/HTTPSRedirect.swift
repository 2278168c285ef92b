import HTTPTypes
import NIOCore
import NIOHTTP1

/// The answer of a plain HTTP listener that sends everyone to HTTPS: a
/// `301` to the same path and query on the HTTPS port, at the site's own
/// host when it has one (`base_url`: a cache in front cannot be made to
/// keep a redirect elsewhere), else at the host the client asked for.
enum HTTPSRedirect {
    /// Where to: the HTTPS port, and the site's host if known.
    struct Target: Sendable {
        var port: Int
        var host: String?
    }

    static func reply(to head: HTTPRequestHead, target: Target) -> PublicFolderHandler.Reply {
        let host = target.host ?? hostName(head.headers["host"].first) ?? "localhost"
        let port = target.port
        let authority = port == 443 ? host : "\(host):\(port)"
        var fields = HTTPFields()
        fields[.location] = "https://\(authority)\(Self.target(head.uri))"
        fields[.contentLength] = "0"
        return PublicFolderHandler.Reply(status: .movedPermanently, headers: fields, body: ByteBuffer())
    }

    /// The host of a `Host` field without its port, if it is a plain DNS
    /// name or IP address: anything else (a hostile client's CR, `@`, `/`)
    /// must not shape the `Location`.
    static func hostName(_ field: String?) -> String? {
        guard var host = field.map({ Substring($0) }), !host.isEmpty, host.utf8.count <= 255 else { return nil }
        if host.hasPrefix("[") {
            // An IPv6 literal, kept in its brackets.
            guard let close = host.firstIndex(of: "]") else { return nil }
            let literal = host[host.index(after: host.startIndex)..<close]
            guard !literal.isEmpty, literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
            return "[\(literal)]"
        }
        if let colon = host.firstIndex(of: ":") { host = host[..<colon] }
        let allowed = host.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "." || scalar == "-")
        }
        return allowed && !host.isEmpty ? String(host) : nil
    }

    /// The path and query of a request target (origin or absolute form),
    /// `/` when it has none.
    static func target(_ uri: String) -> String {
        // Headers go out unchecked (see ConnectionSetUp): no control
        // character or space may reach one, whatever the parser let in.
        guard uri.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7f }) else { return "/" }
        if uri.hasPrefix("/") && !uri.hasPrefix("//") { return uri }
        // Absolute form (`http://host/path?query`): the authority ends at
        // the first `/`, `?` or `#`; what follows is kept.
        guard let scheme = uri.range(of: "://") else { return "/" }
        let rest = uri[scheme.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let tail = rest[end...]
        let target = tail.hasPrefix("/") ? String(tail) : "/" + tail
        return target.hasPrefix("//") ? "/" : target
    }
}
