import BlogCore
import BlogModel
import Foundation
import BlogPages

/// The web client's pages: server-rendered HTML on the blog's own
/// stylesheet, narrow-screen first, every form working without
/// JavaScript (the one script only fills in the browser's location when
/// asked).
enum AppPages {
    /// Who is looking, for the navigation and the forms' CSRF field.
    struct Viewer {
        var name: String
        var csrf: String
    }

    static func layout(_ title: String, viewer: Viewer?, _ body: (inout HTML) -> Void) -> [UInt8] {
        var html = HTML()
        html.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        html.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
        html.text(title)
        html.raw(" · blogd</title>\n<link rel=\"stylesheet\" href=\"/style.css\">\n</head>\n<body class=\"app\">\n<nav class=\"app-nav\">")
        html.raw("<a href=\"/index.html\">All blogs</a>")
        if let viewer {
            html.raw(" <a href=\"/app/\">My posts</a> <a href=\"/")
            html.text(viewer.name)
            html.raw(".html\">My blog</a> <a href=\"/app/settings\">Settings</a> ")
            html.raw("<form method=\"post\" action=\"/app/logout\" class=\"inline\">")
            csrfField(viewer.csrf, &html)
            html.raw("<button type=\"submit\" id=\"logout\">Log out</button></form>")
        } else {
            html.raw(" <a href=\"/app/login\">Log in</a> <a href=\"/app/register\">Register</a>")
        }
        html.raw("</nav>\n<main>\n<h1>")
        html.text(title)
        html.raw("</h1>\n")
        body(&html)
        html.raw("</main>\n</body>\n</html>\n")
        return html.bytes
    }

    static func csrfField(_ token: String, _ html: inout HTML) {
        html.raw("<input type=\"hidden\" name=\"csrf\" value=\"")
        html.text(token)
        html.raw("\">")
    }

    static func message(_ text: String?, kind: String, _ html: inout HTML) {
        guard let text else { return }
        html.raw("<p class=\"\(kind)\" role=\"\(kind == "error" ? "alert" : "status")\">")
        html.text(text)
        html.raw("</p>\n")
    }

    /// The login or register form.
    static func account(register: Bool, name: String, error: String?, formToken: String, open: Bool,
                        next: String? = nil) -> [UInt8] {
        layout(register ? "Register" : "Log in", viewer: nil) { html in
            message(error, kind: "error", &html)
            if register && !open {
                html.raw("<p>Registration is closed: the administrator adds users.</p>\n")
                return
            }
            html.raw("<form method=\"post\" action=\"/app/\(register ? "register" : "login")\" class=\"app-form\">")
            csrfField(formToken, &html)
            if let next {
                // Where to go once in: an app's sign-in waiting (`WebClient.loginReturn`).
                html.raw("<input type=\"hidden\" name=\"next\" value=\"")
                html.text(next)
                html.raw("\">")
            }
            html.raw("<label for=\"name\">Name</label><input id=\"name\" name=\"name\" required maxlength=\"32\" autocapitalize=\"none\" autocomplete=\"username\" value=\"")
            html.text(name)
            html.raw("\"><label for=\"password\">Password</label><input id=\"password\" name=\"password\" type=\"password\" required ")
            html.raw("autocomplete=\"\(register ? "new-password" : "current-password")\">")
            html.raw("<button type=\"submit\" id=\"submit\">\(register ? "Register" : "Log in")</button></form>\n")
            html.raw(register ? "<p>Have an account? <a href=\"/app/login\">Log in</a>.</p>\n"
                              : "<p>New here? <a href=\"/app/register\">Register</a>.</p>\n")
        }
    }

    /// What a post form holds, to show it again after a refusal.
    struct Draft {
        var title = ""
        var content = ""
        var latitude = ""
        var longitude = ""
        /// The new photo's alt text.
        var alt = ""
        /// On an edit: the post's photos, with the alt texts typed.
        var photos: [PostPhoto] = []
        /// On an edit: the photos ticked for removal, by name.
        var removed: Set<String> = []
        /// Tags besides the text's hashtags, as typed (`Hashtags.parseList`).
        var tags = ""
    }

    /// "My posts": the new post form, then the newest posts.
    static func home(_ viewer: Viewer, posts: [PostHeading], draft: Draft, notice: String?, error: String?,
                     trashDays: Int = BlogService.Settings.defaultTrashDays) -> [UInt8] {
        layout("My posts", viewer: viewer) { html in
            message(notice, kind: "notice", &html)
            message(error, kind: "error", &html)
            html.raw("<h2>New post</h2>\n")
            postForm(action: "/app/posts", draft: draft, viewer: viewer, withPlace: true, button: "Publish", &html)
            html.raw("<h2>Published</h2>\n")
            trashNote(trashDays, &html)
            guard !posts.isEmpty else {
                html.raw("<p class=\"empty\">No posts yet.</p>\n")
                return
            }
            html.raw("<ul class=\"my-posts\">\n")
            for post in posts {
                html.raw("<li id=\"post-\(post.id)\"><a href=\"/")
                html.text(PageRenderer.postFile(user: viewer.name, id: post.id))
                html.raw("\">")
                html.text(post.title)
                html.raw("</a> <time>")
                html.text(Self.date(post.createdAt))
                html.raw("</time> <a class=\"edit\" href=\"/app/posts/\(post.id)/edit\">Edit</a> ")
                html.raw("<form method=\"post\" action=\"/app/posts/\(post.id)/delete\" class=\"inline\">")
                csrfField(viewer.csrf, &html)
                html.raw("<button type=\"submit\" class=\"delete\" title=\"\(trashButtonTitle(trashDays))\">")
                html.raw("Move to trash</button></form></li>\n")
            }
            html.raw("</ul>\n")
        }
    }

    static func edit(_ viewer: Viewer, id: Int64, draft: Draft, error: String?) -> [UInt8] {
        layout("Edit post", viewer: viewer) { html in
            message(error, kind: "error", &html)
            postForm(action: "/app/posts/\(id)/edit", draft: draft, viewer: viewer, withPlace: true, button: "Save",
                     editing: true, &html)
            html.raw("<p><a href=\"/app/\">Cancel</a></p>\n")
        }
    }

    private static func postForm(action: String, draft: Draft, viewer: Viewer, withPlace: Bool, button: String,
                                 editing: Bool = false, _ html: inout HTML) {
        // A post may carry a photo, which needs a multipart form.
        html.raw("<form method=\"post\" action=\"\(action)\" class=\"app-form\"\(withPlace ? " enctype=\"multipart/form-data\"" : "")>")
        csrfField(viewer.csrf, &html)
        html.raw("<label for=\"title\">Title</label><input id=\"title\" name=\"title\" required maxlength=\"200\" value=\"")
        html.text(draft.title)
        html.raw("\"><label for=\"content\">Text</label><textarea id=\"content\" name=\"content\" rows=\"8\">")
        html.text(draft.content)
        html.raw("</textarea>")
        html.raw("<label for=\"tags\">Tags (besides the #hashtags in the text; separated by spaces)</label>")
        html.raw("<input id=\"tags\" name=\"tags\" maxlength=\"\(WebClient.maxTagsField)\" value=\"")
        html.text(draft.tags)
        html.raw("\">")
        if withPlace {
            if editing { photoFields(draft, &html) }
            let label = draft.photos.isEmpty ? "Photo" : "Replace with a new photo"
            html.raw("<label for=\"photo\">\(label)</label><input id=\"photo\" name=\"photo\" type=\"file\" accept=\"image/jpeg,image/png,image/webp,image/heic\">")
            html.raw("<label for=\"alt\">Describe the photo for those who cannot see it (alt text)</label>")
            html.raw("<input id=\"alt\" name=\"alt\" maxlength=\"\(PostPhoto.maxAltCharacters)\" value=\"")
            html.text(draft.alt)
            html.raw("\">")
            // Opt-in: nothing is sent unless the author fills these in or
            // asks the browser for its location. An edit shows the place
            // the post has; emptying both fields removes it.
            let hasPlace = !draft.latitude.isEmpty || !draft.longitude.isEmpty
            html.raw("<details class=\"place-fields\"\(hasPlace ? " open" : "")><summary>\(editing ? "Place" : "Add a place")</summary>")
            html.raw("<label for=\"latitude\">Latitude</label><input id=\"latitude\" name=\"latitude\" inputmode=\"decimal\" value=\"")
            html.text(draft.latitude)
            html.raw("\"><label for=\"longitude\">Longitude</label><input id=\"longitude\" name=\"longitude\" inputmode=\"decimal\" value=\"")
            html.text(draft.longitude)
            html.raw("\"><button type=\"button\" id=\"locate\" hidden>Use my location</button>")
            html.raw("<label><input type=\"checkbox\" name=\"photo_location\" id=\"photo-location\"> Use the photo's location (when no place is given)</label></details>")
            html.raw("<script src=\"/app/app.js\" defer></script>")
        }
        html.raw("<button type=\"submit\" id=\"publish\">\(button)</button></form>\n")
    }

    /// An edited post's photos: each with its alt text and a box that
    /// removes it. The thumbnail is drawn small: at its own width it
    /// would be wider than a phone.
    private static func photoFields(_ draft: Draft, _ html: inout HTML) {
        for photo in draft.photos {
            let scale = min(1, 160 / Double(max(photo.thumbnailWidth, photo.thumbnailHeight, 1)))
            let width = max(1, Int((Double(photo.thumbnailWidth) * scale).rounded()))
            let height = max(1, Int((Double(photo.thumbnailHeight) * scale).rounded()))
            html.raw("<fieldset class=\"photo-fields\"><legend>Photo</legend><img src=\"/")
            html.text(photo.thumbnailFile)
            html.raw("\" width=\"\(width)\" height=\"\(height)\" alt=\"")
            html.text(photo.alt)
            html.raw("\"><label for=\"alt-\(photo.name)\">Alt text</label>")
            html.raw("<input id=\"alt-\(photo.name)\" name=\"alt-\(photo.name)\" maxlength=\"\(PostPhoto.maxAltCharacters)\" value=\"")
            html.text(photo.alt)
            html.raw("\"><label><input type=\"checkbox\" name=\"remove-\(photo.name)\" id=\"remove-\(photo.name)\"")
            html.raw(draft.removed.contains(photo.name) ? " checked" : "")
            html.raw("> Remove this photo</label></fieldset>")
        }
    }

    static func notFound(_ viewer: Viewer?) -> [UInt8] {
        layout("Not found", viewer: viewer) { html in
            html.raw("<p>There is nothing here. <a href=\"/app/\">Back</a>.</p>\n")
        }
    }

    static func failure(_ text: String, viewer: Viewer?) -> [UInt8] {
        layout("Not done", viewer: viewer) { html in
            message(text, kind: "error", &html)
            html.raw("<p><a href=\"/app/\">Back</a></p>\n")
        }
    }

    static func date(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
            .timeSeparator(.colon)).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }

    /// Fills in the place fields from the browser's location, when the
    /// author asks (the button shows only where the browser can).
    static let script = """
        "use strict";
        (function () {
          var button = document.getElementById("locate");
          if (!button || !navigator.geolocation) return;
          button.hidden = false;
          button.addEventListener("click", function () {
            button.disabled = true;
            navigator.geolocation.getCurrentPosition(function (where) {
              document.getElementById("latitude").value = where.coords.latitude.toFixed(6);
              document.getElementById("longitude").value = where.coords.longitude.toFixed(6);
              button.disabled = false;
            }, function () { button.disabled = false; }, { timeout: 15000 });
          });
        })();

        """
}

extension AppPages.Draft {
    /// The edit form of a stored post.
    init(_ post: PostRecord) {
        self.init(title: post.title, content: post.content, latitude: post.place?.latitude ?? "",
                  longitude: post.place?.longitude ?? "", photos: post.photos,
                  tags: post.categories.joined(separator: " "))
    }
}
