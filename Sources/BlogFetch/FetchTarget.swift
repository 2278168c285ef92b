import Foundation

/// A URL an outgoing fetch may try: absolute, `http` or `https`, with a
/// host and no user name or password.
struct FetchTarget: Sendable {
    let url: URL
    let host: String
    let port: Int

    init(_ text: String, relativeTo base: URL? = nil) throws(FetchError) {
        guard let url = URL(string: text, relativeTo: base)?.absoluteURL,
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host(percentEncoded: false), !host.isEmpty,
              url.user == nil, url.password == nil
        else { throw .unsupportedURL(text) }
        self.url = url
        self.host = host.lowercased()
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
    }
}
