import BlogApp
import BlogWeb

/// The inbox with its outgoing GETs (the signer's key, a follower's
/// actor) signed as the blog posted to, or for the shared inbox, which
/// has no blog, as the site's own actor (`SigningActor`).
struct InboxSigningScope: WebApplication {
    let inbox: InboxEndpoint

    func handles(path: String) -> Bool { inbox.handles(path: path) }
    func bodyLimit(path: String) -> Int { inbox.bodyLimit(path: path) }
    func refusal(beforeReading request: WebRequest) -> WebResponse? { inbox.refusal(beforeReading: request) }

    func respond(to request: WebRequest) -> WebResponse {
        SigningActor.$current.withValue(Self.signer(ofInboxPath: request.path)) { inbox.respond(to: request) }
    }

    /// `.blog(NAME)` for `/ap/NAME/inbox`, `.instance` for the shared
    /// inbox `/ap/inbox`; nil for any other path.
    static func signer(ofInboxPath path: String) -> SigningActor? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0].isEmpty, parts[1] == "ap" else { return nil }
        if parts.count == 3, parts[2] == "inbox" { return .instance }
        guard parts.count == 4, parts[3] == "inbox", !parts[2].isEmpty else { return nil }
        return .blog(String(parts[2]))
    }
}
