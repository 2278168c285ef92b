import BlogCore
import BlogModel
import Foundation

/// What the Fediverse page shows.
struct FediverseView {
    var byHand: Bool
    var pending: [Follower]
    var pendingCount: Int
    var followers: [Follower]
    var followerCount: Int
    var page: Int
    var pages: Int
    var blocks: [ActorBlock]
}

extension AppPages {
    static func fediverse(_ viewer: Viewer, _ view: FediverseView, notice: String?, error: String?,
                          typed: FediverseSettings.Typed) -> [UInt8] {
        let path = FediverseSettings.path
        return layout("Fediverse", viewer: viewer) { html in
            message(notice, kind: "notice", &html)
            message(error, kind: "error", &html)
            html.raw("<p>People on Mastodon and its kin follow your blog as <code>@")
            html.text(viewer.name)
            html.raw("@…</code>. Here you choose who may.</p>\n")

            html.raw("<h2>Approval</h2>\n<form method=\"post\" action=\"\(path)/approval\" class=\"app-form\">")
            csrfField(viewer.csrf, &html)
            html.raw("<fieldset><legend>New followers</legend>")
            html.raw("<label><input type=\"radio\" name=\"approve\" value=\"off\"\(view.byHand ? "" : " checked")> are accepted at once</label>")
            html.raw("<label><input type=\"radio\" name=\"approve\" value=\"on\"\(view.byHand ? " checked" : "")> wait for my approval</label>")
            html.raw("</fieldset><button type=\"submit\" id=\"save-approval\">Save</button></form>\n")
            html.raw("<p>Turning approval off accepts no one by itself: follows waiting stay here until you choose.</p>\n")

            html.raw("<h2>Waiting for approval (\(view.pendingCount))</h2>\n")
            followerList(view.pending, viewer: viewer, actions: [("approve", "Approve"), ("refuse", "Refuse")], &html)

            html.raw("<h2>Followers (\(view.followerCount))</h2>\n")
            followerList(view.followers, viewer: viewer, actions: [("remove", "Remove")], &html)
            if view.pages > 1 {
                html.raw("<p class=\"pages\">Page \(view.page) of \(view.pages)")
                if view.page > 1 { html.raw(" <a rel=\"prev\" href=\"\(path)?page=\(view.page - 1)\">Newer</a>") }
                if view.page < view.pages { html.raw(" <a rel=\"next\" href=\"\(path)?page=\(view.page + 1)\">Older</a>") }
                html.raw("</p>\n")
            }

            html.raw("<h2>Blocked</h2>\n")
            if view.blocks.isEmpty {
                html.raw("<p class=\"empty\">None.</p>\n")
            } else {
                html.raw("<ul class=\"blocks\">\n")
                for block in view.blocks {
                    html.raw("<li>\(block.target.kind == "domain" ? "domain" : "actor") <code>")
                    html.text(block.target.value)
                    html.raw("</code> <form method=\"post\" class=\"inline\" action=\"\(path)/unblock\">")
                    csrfField(viewer.csrf, &html)
                    html.raw("<input type=\"hidden\" name=\"kind\" value=\"\(block.target.kind)\"><input type=\"hidden\" name=\"value\" value=\"")
                    html.text(block.target.value)
                    html.raw("\"><button type=\"submit\">Unblock</button></form></li>\n")
                }
                html.raw("</ul>\n")
            }
            html.raw("<h3>Block</h3>\n<p>An actor by its URL (<code>https://social.example/users/bob</code>), or a whole ")
            html.raw("domain (<code>social.example</code>, its subdomains too): its followers, replies and likes go, and ")
            html.raw("what it sends is refused.</p>\n")
            html.raw("<form method=\"post\" action=\"\(path)/block\" class=\"app-form\">")
            csrfField(viewer.csrf, &html)
            html.raw("<fieldset><legend>Block</legend>")
            html.raw("<label><input type=\"radio\" name=\"kind\" value=\"actor\"\(typed.kind == "domain" ? "" : " checked")> an actor</label>")
            html.raw("<label><input type=\"radio\" name=\"kind\" value=\"domain\"\(typed.kind == "domain" ? " checked" : "")> a domain</label>")
            html.raw("</fieldset><label for=\"block-value\">URL or domain</label>")
            html.raw("<input id=\"block-value\" name=\"value\" required maxlength=\"\(BlockInput.maxActorBytes)\" value=\"")
            html.text(typed.value)
            html.raw("\"><button type=\"submit\" id=\"block\">Block</button></form>\n")
        }
    }

    private static func followerList(_ followers: [Follower], viewer: Viewer, actions: [(String, String)],
                                     _ html: inout HTML) {
        guard !followers.isEmpty else {
            html.raw("<p class=\"empty\">None.</p>\n")
            return
        }
        html.raw("<ul class=\"followers\">\n")
        for follower in followers {
            html.raw("<li><a rel=\"nofollow ugc\" href=\"")
            html.text(follower.actorID)
            html.raw("\">")
            html.text(follower.actorID)
            html.raw("</a> · ")
            html.text(follower.host)
            html.raw(" · <time>")
            html.text(date(follower.createdAt))
            html.raw("</time>")
            for (action, label) in actions {
                html.raw(" <form method=\"post\" class=\"inline\" action=\"\(FediverseSettings.path)/\(action)\">")
                csrfField(viewer.csrf, &html)
                html.raw("<input type=\"hidden\" name=\"actor\" value=\"")
                html.text(follower.actorID)
                html.raw("\"><button type=\"submit\">\(label)</button></form>")
            }
            html.raw("</li>\n")
        }
        html.raw("</ul>\n")
    }
}
