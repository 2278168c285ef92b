import BlogModel
import Foundation

/// The trash: a user's deleted posts, each with a Restore button, until
/// they are purged.
extension AppPages {
    /// Trashed posts listed at most (the newest trashed first).
    static let trashListed = 200

    static func trash(_ viewer: Viewer, posts: [TrashedPost], trashDays: Int, notice: String?, error: String?) -> [UInt8] {
        layout("Trash", viewer: viewer) { html in
            message(notice, kind: "notice", &html)
            message(error, kind: "error", &html)
            html.raw("<p>Deleted posts stay here for \(days(trashDays)): readers no longer see them, and you can restore ")
            html.raw("them with their date, place and photos. Then they are gone for good. <a href=\"/app/\">Back</a></p>\n")
            guard !posts.isEmpty else {
                html.raw("<p class=\"empty\">The trash is empty.</p>\n")
                return
            }
            html.raw("<ul class=\"my-posts trash\">\n")
            for post in posts {
                html.raw("<li id=\"trashed-\(post.id)\">")
                html.text(post.title)
                html.raw(" <time>")
                html.text(date(post.createdAt))
                html.raw("</time> <span class=\"purge\">gone for good ")
                html.text(date(post.trashedAt.addingTimeInterval(Double(trashDays) * 86_400)))
                html.raw("</span> <form method=\"post\" action=\"/app/posts/\(post.id)/restore\" class=\"inline\">")
                csrfField(viewer.csrf, &html)
                html.raw("<button type=\"submit\" class=\"restore\">Restore</button></form></li>\n")
            }
            html.raw("</ul>\n")
        }
    }

    /// Under "Published": where deleted posts go, and for how long.
    static func trashNote(_ trashDays: Int, _ html: inout HTML) {
        html.raw("<p class=\"trash-note\">Deleted posts go to the <a href=\"/app/trash\">Trash</a> for ")
        html.raw("\(days(trashDays)), where you can restore them.</p>\n")
    }

    static func trashButtonTitle(_ trashDays: Int) -> String {
        "Readers no longer see it; you can restore it from the Trash for \(days(trashDays))."
    }

    static func days(_ count: Int) -> String {
        count == 1 ? "1 day" : "\(count) days"
    }
}
