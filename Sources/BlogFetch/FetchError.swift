/// Why an outgoing fetch failed. Each case keeps what is needed to say so
/// clearly; `transport` keeps the underlying error.
public enum FetchError: Error, Sendable, CustomStringConvertible {
    /// Not an absolute `http` or `https` URL (or no host in it).
    case unsupportedURL(String)
    /// The host's name did not resolve (`getaddrinfo`'s code).
    case unresolvable(host: String, code: Int32)
    /// The host resolves to an address the settings forbid (loopback,
    /// private, link-local, ...).
    case forbiddenAddress(host: String, address: String)
    /// The body went past `FetchSettings.maxBytes`.
    case tooLarge(limit: Int)
    /// The whole fetch took longer than `FetchSettings.timeLimit`.
    case timedOut
    /// More redirects than `FetchSettings.maxRedirects`.
    case tooManyRedirects(limit: Int)
    /// A redirect without a usable `Location`.
    case badRedirect(String)
    /// The connection or the HTTP exchange failed.
    case transport(any Error)

    public var description: String {
        switch self {
        case .unsupportedURL(let url): "not an http(s) URL: \(url)"
        case .unresolvable(let host, let code): "cannot resolve \(host) (getaddrinfo \(code))"
        case .forbiddenAddress(let host, let address): "\(host) is at \(address), which outgoing fetches may not reach"
        case .tooLarge(let limit): "the response is over \(limit) bytes"
        case .timedOut: "the fetch took too long"
        case .tooManyRedirects(let limit): "more than \(limit) redirects"
        case .badRedirect(let location): "unusable redirect to \(location)"
        case .transport(let error): "transport: \(error)"
        }
    }
}
