import Foundation

/// WebFinger (RFC 7033) for the site's blogs: which blog a `resource`
/// names, and the JRD that says where its actor is. Mastodon finds
/// `@alice@blog.example` this way: it asks
/// `/.well-known/webfinger?resource=acct:alice@blog.example` and follows
/// the `self` link of type `application/activity+json`.
///
///     let finger = WebFingerDocument(urls: ActivityURLs(base: "https://blog.example/"))
///     finger.user(in: "acct:alice@blog.example")   // .user("alice")
public struct WebFingerDocument: Sendable {
    public let urls: ActivityURLs
    /// The site's host as an `acct:` URI names it: with its port when
    /// it is not the scheme's own (`blog.example`, `localhost:8080`),
    /// lowercased.
    public let host: String

    /// The type of the answer.
    public static let mediaType = "application/jrd+json"
    /// The `rel` of a blog's page.
    public static let profilePage = "http://webfinger.net/rel/profile-page"

    public init(urls: ActivityURLs) {
        self.urls = urls
        host = Self.host(of: urls.base)
    }

    /// What a `resource` names.
    public enum Subject: Equatable, Sendable {
        /// A blog of this site, by the name the resource gave.
        case user(String)
        /// Something of another host: not ours to answer (404).
        case elsewhere
        /// Not a resource we understand (400).
        case malformed
    }

    /// The blog `resource` names: `acct:NAME@HOST` (or `NAME@HOST`),
    /// the actor's URL or the blog page's URL.
    public func user(in resource: String) -> Subject {
        if resource.hasPrefix("http://") || resource.hasPrefix("https://") {
            for (prefix, suffix) in [(urls.actor(""), ""), (urls.base, ".html")] {
                guard resource.hasPrefix(prefix), resource.hasSuffix(suffix),
                      resource.count > prefix.count + suffix.count else { continue }
                let name = String(resource.dropFirst(prefix.count).dropLast(suffix.count))
                return name.contains("/") || name.contains(".") ? .elsewhere : .user(name)
            }
            return .elsewhere
        }
        var account = Substring(resource)
        if account.lowercased().hasPrefix("acct:") { account = account.dropFirst(5) }
        // The last @ splits: a name holds none.
        guard let at = account.lastIndex(of: "@") else { return .malformed }
        let name = account[..<at], domain = account[account.index(after: at)...]
        guard !name.isEmpty, !domain.isEmpty else { return .malformed }
        return domain.lowercased() == host ? .user(String(name.hasPrefix("@") ? name.dropFirst() : name)) : .elsewhere
    }

    /// The JRD of `user`'s blog (`user` as stored); with `rels`, only the
    /// links of those relations (RFC 7033 4.3).
    public func document(user: String, rels: [String] = []) -> ActivityJSON {
        var links: [ActivityJSON] = []
        if rels.isEmpty || rels.contains("self") {
            links.append(.object([("rel", "self"), ("type", .string(ActivityContext.mediaType)),
                                  ("href", .string(urls.actor(user)))]))
        }
        if rels.isEmpty || rels.contains(Self.profilePage) {
            links.append(.object([("rel", .string(Self.profilePage)), ("type", "text/html"),
                                  ("href", .string(urls.page(user)))]))
        }
        return .object([
            ("subject", .string("acct:\(user)@\(host)")),
            ("aliases", .array([.string(urls.actor(user)), .string(urls.page(user))])),
            ("links", .array(links)),
        ])
    }

    /// `https://Blog.Example:443/x/` → `blog.example`; `http://h:8080/` → `h:8080`.
    static func host(of base: String) -> String {
        guard let scheme = base.range(of: "://") else { return "" }
        let rest = base[scheme.upperBound...]
        var authority = String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }).lowercased()
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        let defaultPort = base.lowercased().hasPrefix("https") ? ":443" : ":80"
        if authority.hasSuffix(defaultPort) { authority = String(authority.dropLast(defaultPort.count)) }
        return authority
    }
}
