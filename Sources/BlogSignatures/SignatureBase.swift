/// The signature base of RFC 9421 (section 2.5): one line per covered
/// component, `"name": value`, then the `"@signature-params"` line.
///
///     "@method": POST
///     "@target-uri": https://blog.example/ap/alice/inbox
///     "content-digest": sha-256=:…:
///     "@signature-params": ("@method" "@target-uri" "content-digest");created=1800000000;keyid="…"
///
/// Derived components: `@method`, `@target-uri`, `@authority`, `@scheme`,
/// `@request-target`, `@path`, `@query`; the authority is the request's
/// `Host` (lowercased, without the scheme's default port), the scheme the
/// request's (the site's base URL's: behind a TLS proxy the socket's is
/// not the one signed). Any other component is a header field, lowercase;
/// one the request lacks refuses the whole base, as with draft-cavage.
public enum SignatureBase {
    public static func make(components: [String], parameters: String,
                            request: SignedRequest) throws(SignatureError) -> String {
        var lines: [String] = []
        lines.reserveCapacity(components.count + 1)
        for name in components {
            let value = try self.value(of: name, in: request)
            guard !value.contains(where: { $0 == "\n" || $0 == "\r" }) else {
                throw .malformed("the \(name) component holds a line break")
            }
            lines.append("\"\(name)\": \(value)")
        }
        lines.append("\"@signature-params\": \(parameters)")
        return lines.joined(separator: "\n")
    }

    static func value(of name: String, in request: SignedRequest) throws(SignatureError) -> String {
        let path = request.path.isEmpty ? "/" : request.path
        let target = request.query.isEmpty ? path : path + "?" + request.query
        switch name {
        case "@method": return request.method.uppercased()
        case "@scheme": return request.scheme.lowercased()
        case "@authority": return try authority(request)
        case "@target-uri": return request.scheme.lowercased() + "://" + (try authority(request)) + target
        case "@request-target": return target
        case "@path": return path
        case "@query": return "?" + request.query
        default:
            guard !name.hasPrefix("@") else { throw .malformed("the component \(name) is not supported") }
            guard let value = request.header(name) else { throw .missingHeader(name) }
            return value
        }
    }

    /// The `Host` header, lowercased, without the scheme's default port.
    static func authority(_ request: SignedRequest) throws(SignatureError) -> String {
        guard var host = request.header("host")?.lowercased(), !host.isEmpty else { throw .missingHeader("host") }
        let defaultPort = request.scheme.lowercased() == "https" ? ":443" : ":80"
        if host.hasSuffix(defaultPort) { host.removeLast(defaultPort.count) }
        return host
    }
}
