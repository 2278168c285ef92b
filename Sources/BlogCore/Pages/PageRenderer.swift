import Foundation

/// The HTML of a user's page.
///
/// The page is line-oriented, as the original server expects: the heading
/// line holds `</h1>`, and each post is one line right after it, newest
/// first, carrying its id, so `UserPages` can put a new post after the
/// heading line and `ParsedPage` can read a page back.
public enum PageRenderer {
    /// The marker of the line after which posts go.
    public static let headingMarker = "</h1>"

    /// A complete main page for `user` with `posts` (newest first).
    public static func page(user: String, posts: [PostRecord], archives: Int = 0) -> String {
        page(user: user, postLines: posts.map(postLine), archives: archives)
    }

    /// A main page from already rendered post lines, linking to the newest
    /// of `archives` archive pages when there are any.
    public static func page(user: String, postLines: [String], archives: Int) -> String {
        document(title: "\(user) – blog", heading: user, postLines: postLines,
                 nav: archives > 0 ? [(archiveFile(user: user, number: archives), "Older posts")] : [])
    }

    /// Archive page `number` of `user`, written once when it fills.
    public static func archivePage(user: String, number: Int, postLines: [String]) -> String {
        var nav = [(user + ".html", "Newest posts")]
        if number > 1 { nav.append((archiveFile(user: user, number: number - 1), "Older posts")) }
        return document(title: "\(user) (\(number)) – blog", heading: "\(user) · archive \(number)", postLines: postLines, nav: nav)
    }

    /// The file name of an archive page. Names hold no `.`, so `alice.2.html`
    /// can never be the main page of another user.
    public static func archiveFile(user: String, number: Int) -> String {
        "\(user).\(number).html"
    }

    /// The shell every generated page shares: head, heading line, `body`
    /// lines, optional navigation, footer.
    static func document(title: String, heading: String, postLines: [String], nav: [(String, String)]) -> String {
        var lines = [
            "<!DOCTYPE html>",
            "<html lang=\"en\">",
            "<head>",
            "<meta charset=\"utf-8\">",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            "<title>\(HTML.escape(title))</title>",
            "<link rel=\"stylesheet\" href=\"style.css\">",
            "</head>",
            "<body>",
            "<main class=\"blog\">",
            "<h1 class=\"blog-title\">\(HTML.escape(heading))</h1>",
        ]
        lines += postLines
        if !nav.isEmpty {
            let links = nav.map { "<a href=\"\(HTML.escape($0.0))\">\($0.1)</a>" }.joined(separator: " ")
            lines.append("<nav class=\"archive\">\(links)</nav>")
        }
        lines += [
            "</main>",
            "<footer class=\"blog-footer\">Published with blogd</footer>",
            "</body>",
            "</html>",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// One post as one line: an `<article>` carrying the post id and a
    /// machine-readable date.
    public static func postLine(_ post: PostRecord) -> String {
        let id = post.id.map(String.init) ?? "new"
        return "<article class=\"post\" id=\"post-\(id)\">"
            + "<h2>\(HTML.escape(post.title))</h2>"
            + "<p class=\"date\"><time datetime=\"\(PostDate.machine(post.createdAt))\">\(PostDate.human(post.createdAt))</time></p>"
            + "<div class=\"content\">\(HTML.escapeMultiline(post.content))</div>"
            + "</article>"
    }
}

/// How post dates are written on pages.
enum PostDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func parts(_ date: Date) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    }

    /// `2026-11-22T18:47:05Z`, for `<time datetime>`.
    static func machine(_ date: Date) -> String {
        let c = parts(date)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ",
                      c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    /// `22 Nov 2026, 18:47 UTC`, for people.
    static func human(_ date: Date) -> String {
        let c = parts(date)
        return "\(c.day!) \(months[c.month! - 1]) \(c.year!), "
            + String(format: "%02d:%02d UTC", c.hour!, c.minute!)
    }
}
