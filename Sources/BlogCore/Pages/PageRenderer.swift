/// The HTML of blogd's pages, rendered straight into UTF-8 bytes.
///
/// Pages are line-oriented, as the original server's were: the heading
/// line holds `</h1>`, and each post is one line after it, newest first,
/// carrying its id and a machine-readable date. A post's line (its
/// fragment) depends on the post alone, so it is rendered once and reused
/// on every page that shows it.
///
///     let fragment = PageRenderer.fragment(post)
///     let page = PageRenderer.mainPage(user: "alice", fragments: [fragment], olderArchive: nil)
public enum PageRenderer {
    /// The marker of the line after which posts go.
    public static let headingMarker = "</h1>"

    /// One post as one line (no line break): an `<article>` with the post
    /// id, title, date and text.
    public static func fragment(_ post: PostRecord) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160 + post.title.utf8.count + post.content.utf8.count)
        out += articleStart
        out += Array(String(post.id).utf8)
        out += titleStart
        HTMLEscape.append(post.title, to: &out)
        out += dateStart
        out += Array(PostDate.machine(post.createdAt).utf8)
        out += dateMiddle
        out += Array(PostDate.human(post.createdAt).utf8)
        out += contentStart
        HTMLEscape.appendMultiline(post.content, to: &out)
        out += articleEnd
        return out
    }

    /// What a post's text weighs on a page: its title and content as
    /// escaped, the part of its fragment that varies.
    public static func weight(title: String, content: String) -> Int {
        HTMLEscape.multilineCount(title) + HTMLEscape.multilineCount(content)
    }

    /// A user's main page: `fragments` newest first, linking to archive
    /// page `olderArchive` when there is one.
    public static func mainPage(user: String, fragments: [[UInt8]], olderArchive: Int?) -> [UInt8] {
        document(title: "\(user) – blog", heading: user, fragments: fragments,
                 nav: olderArchive.map { [(archiveFile(user: user, number: $0), "Older posts")] } ?? [])
    }

    /// Archive page `number` of `user`, written once when it fills.
    public static func archivePage(user: String, number: Int, fragments: [[UInt8]]) -> [UInt8] {
        var nav = [(mainFile(user: user), "Newest posts")]
        if number > 1 { nav.append((archiveFile(user: user, number: number - 1), "Older posts")) }
        return document(title: "\(user) (\(number)) – blog", heading: "\(user) · archive \(number)",
                        fragments: fragments, nav: nav)
    }

    /// `alice.html`.
    public static func mainFile(user: String) -> String {
        user + ".html"
    }

    /// `alice.2.html`. Names hold no `.`, so an archive page can never be
    /// the main page of another user.
    public static func archiveFile(user: String, number: Int) -> String {
        "\(user).\(number).html"
    }

    /// The shell every page shares: head, heading line, one line per
    /// fragment, optional navigation, footer.
    static func document(title: String, heading: String, fragments: [[UInt8]], nav: [(href: String, text: String)]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(fragments.reduce(600) { $0 + $1.count + 1 })
        out += documentStart
        HTMLEscape.append(title, to: &out)
        out += headStartToHeading
        HTMLEscape.append(heading, to: &out)
        out += headingEnd
        for fragment in fragments {
            out += fragment
            out.append(UInt8(ascii: "\n"))
        }
        if !nav.isEmpty {
            out += navStart
            for (index, link) in nav.enumerated() {
                if index > 0 { out.append(UInt8(ascii: " ")) }
                out += linkStart
                HTMLEscape.append(link.href, to: &out)
                out += linkMiddle
                HTMLEscape.append(link.text, to: &out)
                out += linkEnd
            }
            out += navEnd
        }
        out += documentEnd
        return out
    }

    private static let articleStart = Array("<article class=\"post\" id=\"post-".utf8)
    private static let titleStart = Array("\"><h2>".utf8)
    private static let dateStart = Array("</h2><p class=\"date\"><time datetime=\"".utf8)
    private static let dateMiddle = Array("\">".utf8)
    private static let contentStart = Array("</time></p><div class=\"content\">".utf8)
    private static let articleEnd = Array("</div></article>".utf8)

    private static let documentStart = Array("""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>
        """.utf8)
    private static let headStartToHeading = Array("""
        </title>
        <link rel="stylesheet" href="style.css">
        </head>
        <body>
        <main class="blog">
        <h1 class="blog-title">
        """.utf8)
    private static let headingEnd = Array("</h1>\n".utf8)
    private static let navStart = Array("<nav class=\"archive\">".utf8)
    private static let linkStart = Array("<a href=\"".utf8)
    private static let linkMiddle = Array("\">".utf8)
    private static let linkEnd = Array("</a>".utf8)
    private static let navEnd = Array("</nav>\n".utf8)
    private static let documentEnd = Array("""
        </main>
        <footer class="blog-footer">Published with blogd</footer>
        </body>
        </html>

        """.utf8)
}
