import BlogCore
import BlogModel
import BlogWeb
import BlogWire
import HTTPTypes

/// The blog's own settings on the settings page: title, description, the
/// author's display name and photo (`BlogSettings`), checked by the same
/// rules as `blogd blog set`, refused whole with the rule broken.
extension WebClient {
    /// What the blog form shows: the stored settings, or what was typed
    /// into a form refused.
    struct BlogForm: Sendable, Equatable {
        var title = ""
        var description = ""
        var authorName = ""
        var authorPhoto = ""

        init(_ settings: BlogSettings) {
            title = settings.title ?? ""
            description = settings.description ?? ""
            authorName = settings.authorName ?? ""
            authorPhoto = settings.authorPhoto ?? ""
        }

        init(_ form: FormData) {
            title = form["title"] ?? ""
            description = form["description"] ?? ""
            authorName = form["author_name"] ?? ""
            authorPhoto = form["author_photo"] ?? ""
        }
    }

    func saveBlogSettings(_ signedIn: SignedIn, _ request: WebRequest) -> WebResponse {
        let form = FormData(bytes: request.body)
        guard CSRF.check(form["csrf"], session: signedIn.secret) else { return Self.forged(signedIn) }
        guard let save = backend.setBlogSettings else { return Self.unavailable(signedIn) }
        let typed = BlogForm(form)
        func again(_ error: String, _ status: HTTPResponse.Status) -> WebResponse {
            settings(signedIn, newSecret: nil, error: error, status: status, blogForm: typed)
        }
        guard !form.isRefused else { return again(Self.notUTF8, .badRequest) }
        let blog: BlogSettings
        do {
            blog = try BlogSettings(title: typed.title, description: typed.description, authorName: typed.authorName,
                                    authorPhoto: typed.authorPhoto)
        } catch {
            return again("Not saved: \(error.description).", .badRequest)
        }
        guard backend.blogSettingsBudget.take(for: request.peerAddress) else {
            return again("Too many changes from your address: wait a minute and try again.", .tooManyRequests)
        }
        do {
            try save(signedIn.user.name, blog)
        } catch {
            return again(Self.failed, .serviceUnavailable)
        }
        return .redirect("/app/settings?done=blog")
    }

    /// The form of the settings page, filled with the stored settings
    /// unless `typed` is given; nil when they cannot be read.
    func blogForm(_ signedIn: SignedIn, typed: BlogForm?) -> BlogForm? {
        if let typed { return typed }
        return (try? backend.storage.blogSettings(ofUserID: signedIn.user.id)).map(BlogForm.init)
    }
}

extension AppPages {
    /// The blog's settings form.
    static func blogFields(_ viewer: Viewer, _ form: WebClient.BlogForm, _ html: inout HTML) {
        html.raw("<h2>Your blog</h2>\n<p>Shown on every page of your blog and in its feed; leave a field empty for the default ")
        html.raw("(your name). The photo is a path on this site, such as the address of one of your posts' photos ")
        html.raw("(<code>photos/…jpg</code>).</p>\n")
        html.raw("<form method=\"post\" action=\"/app/settings/blog\" class=\"app-form\">")
        csrfField(viewer.csrf, &html)
        field("blog-title", "title", "Title", form.title, max: BlogSettings.maxTitleCharacters, &html)
        field("blog-description", "description", "Description", form.description,
              max: BlogSettings.maxDescriptionCharacters, &html)
        field("author-name", "author_name", "Your name as shown", form.authorName,
              max: BlogSettings.maxAuthorNameCharacters, &html)
        field("author-photo", "author_photo", "Your photo", form.authorPhoto, max: BlogSettings.maxPhotoPathBytes, &html)
        html.raw("<button type=\"submit\" id=\"save-blog\">Save</button></form>\n")
    }

    private static func field(_ id: String, _ name: String, _ label: String, _ value: String, max: Int, _ html: inout HTML) {
        html.raw("<label for=\"\(id)\">\(label)</label><input id=\"\(id)\" name=\"\(name)\" maxlength=\"\(max)\" value=\"")
        html.text(value)
        html.raw("\">")
    }
}
