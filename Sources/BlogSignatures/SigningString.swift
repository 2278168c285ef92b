/// The string a draft-cavage-12 signature signs: one `name: value` line
/// per listed header, in the listed order, joined by newlines.
///
///     (request-target): post /ap/alice/inbox
///     host: blog.example
///     date: Tue, 07 Jun 2014 20:51:35 GMT
///     digest: SHA-256=…
public enum SigningString {
    /// Builds it for `request`. `(request-target)` is the lowercased
    /// method and the target as sent; `(created)` and `(expires)` come
    /// from the signature's parameters. A listed header the request lacks
    /// refuses the whole string: signing an empty value would let one
    /// signature serve requests with and without the header.
    public static func make(headers names: [String], request: SignedRequest,
                            created: Int? = nil, expires: Int? = nil) throws(SignatureError) -> String {
        var lines: [String] = []
        lines.reserveCapacity(names.count)
        for name in names {
            let name = name.lowercased()
            let value: String
            switch name {
            case "(request-target)":
                value = request.method.lowercased() + " " + request.target
            case "(created)":
                guard let created else { throw .missingHeader(name) }
                value = String(created)
            case "(expires)":
                guard let expires else { throw .missingHeader(name) }
                value = String(expires)
            default:
                guard let found = request.header(name) else { throw .missingHeader(name) }
                value = found
            }
            // A newline in a value would forge a line of its own.
            guard !value.contains(where: { $0 == "\n" || $0 == "\r" }) else {
                throw .malformed("the \(name) header holds a line break")
            }
            lines.append(name + ": " + value)
        }
        return lines.joined(separator: "\n")
    }
}
