import BlogApp
import BlogWeb

/// The inbox with its outgoing GETs (the signer's key, a follower's
/// actor) signed as the blog posted to (`SigningBlog`); the shared inbox
/// has no blog, and its GETs go unsigned.
struct InboxSigningScope: WebApplication {
    let inbox: InboxEndpoint

    func handles(path: String) -> Bool { inbox.handles(path: path) }
    func bodyLimit(path: String) -> Int { inbox.bodyLimit(path: path) }
    func refusal(beforeReading request: WebRequest) -> WebResponse? { inbox.refusal(beforeReading: request) }

    func respond(to request: WebRequest) -> WebResponse {
        SigningBlog.$name.withValue(Self.blog(ofInboxPath: request.path)) { inbox.respond(to: request) }
    }

    /// NAME of `/ap/NAME/inbox`; nil for the shared inbox.
    static func blog(ofInboxPath path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "ap", parts[3] == "inbox", !parts[2].isEmpty else { return nil }
        return String(parts[2])
    }
}
