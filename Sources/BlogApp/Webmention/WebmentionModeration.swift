import BlogCore
import BlogModel
import BlogPages
import BlogWeb
import HTTPTypes

/// The web client's page of received Webmentions, `/app/webmentions`:
/// each waiting one with who sent it, its kind and text, and Approve and
/// Reject buttons (forms with the session's CSRF token); the approved
/// ones below, to remove. Signed in with the web client's session.
public struct WebmentionModeration: WebApplication {
    public static let path = "/app/webmentions"
    /// Webmentions listed of each state.
    static let listed = 200

    let client: WebClient
    let service: BlogService

    public init(client: WebClient, service: BlogService) {
        self.client = client
        self.service = service
    }

    public func handles(path: String) -> Bool { path == Self.path || path.hasPrefix(Self.path + "/") }
    public func bodyLimit(path: String) -> Int { 4096 }

    public func respond(to request: WebRequest) -> WebResponse {
        let signedIn: WebClient.SignedIn?
        do {
            signedIn = try client.signedIn(request)
        } catch {
            return .page(AppPages.failure("The database did not answer; try again in a moment.", viewer: nil),
                         status: .serviceUnavailable)
        }
        guard let signedIn else { return .redirect("/app/login") }
        if request.path == Self.path, request.method == .get || request.method == .head {
            return list(signedIn, notice: nil)
        }
        let parts = request.path.dropFirst(Self.path.count + 1).split(separator: "/")
        guard request.method == .post, parts.count == 2, let id = Int64(parts[0]), id > 0,
              parts[1] == "approve" || parts[1] == "reject" else {
            return .page(AppPages.notFound(signedIn.viewer), status: .notFound)
        }
        guard WebClient.sameOrigin(request),
              CSRF.check(FormData(bytes: request.body)["csrf"], session: signedIn.secret) else {
            return WebClient.forged(signedIn)
        }
        do {
            let done = parts[1] == "approve"
                ? try service.approveWebmention(id: id, ofUserID: signedIn.user.id) != nil
                : try service.removeWebmention(id: id, ofUserID: signedIn.user.id) != nil
            guard done else { return .page(AppPages.notFound(signedIn.viewer), status: .notFound) }
            return .redirect(Self.path)
        } catch {
            return WebClient.unavailable(signedIn)
        }
    }

    private func list(_ signedIn: WebClient.SignedIn, notice: String?) -> WebResponse {
        let waiting: [Webmention]
        let approved: [Webmention]
        do {
            waiting = try service.storage.webmentions(ofUserID: signedIn.user.id, approved: false, limit: Self.listed)
            approved = try service.storage.webmentions(ofUserID: signedIn.user.id, approved: true, limit: Self.listed)
        } catch {
            return WebClient.unavailable(signedIn)
        }
        let viewer = signedIn.viewer
        return .page(AppPages.layout("Webmentions", viewer: viewer) { html in
            AppPages.message(notice, kind: "notice", &html)
            html.raw("<p>Other sites' replies, likes, reposts and mentions of your posts. They show under the post once you approve them.</p>\n")
            html.raw("<h2>Waiting for you</h2>\n")
            Self.table(waiting, viewer: viewer, approve: true, &html)
            html.raw("<h2>Shown</h2>\n")
            Self.table(approved, viewer: viewer, approve: false, &html)
        })
    }

    private static func table(_ mentions: [Webmention], viewer: AppPages.Viewer, approve: Bool, _ html: inout HTML) {
        guard !mentions.isEmpty else {
            html.raw("<p class=\"empty\">None.</p>\n")
            return
        }
        html.raw("<ul class=\"webmentions\">\n")
        for mention in mentions {
            html.raw("<li id=\"webmention-\(mention.id)\"><a rel=\"nofollow ugc\" href=\"")
            html.text(mention.source)
            html.raw("\">")
            html.text(mention.content.authorName.isEmpty ? mention.source : mention.content.authorName)
            html.raw("</a> · ")
            html.text(mention.verifiedAt == nil ? "not verified yet" : mention.content.kind.rawValue)
            html.raw(" · <a href=\"/")
            html.text(mention.target.split(separator: "/").suffix(2).joined(separator: "/"))
            html.raw("\">your post</a>")
            if !mention.content.title.isEmpty {
                html.raw("<br><strong>")
                html.text(mention.content.title)
                html.raw("</strong>")
            }
            if !mention.content.text.isEmpty {
                html.raw("<br>")
                html.multiline(String(mention.content.text.prefix(500)))
            }
            html.raw("<br>")
            if approve {
                html.raw("<form method=\"post\" class=\"inline\" action=\"\(path)/\(mention.id)/approve\">")
                AppPages.csrfField(viewer.csrf, &html)
                html.raw("<button type=\"submit\">Approve</button></form> ")
            }
            html.raw("<form method=\"post\" class=\"inline\" action=\"\(path)/\(mention.id)/reject\">")
            AppPages.csrfField(viewer.csrf, &html)
            html.raw("<button type=\"submit\">\(approve ? "Reject" : "Remove")</button></form></li>\n")
        }
        html.raw("</ul>\n")
    }
}
