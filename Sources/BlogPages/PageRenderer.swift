import BlogWire
import BlogModel
/// The HTML of blogd's pages, rendered straight into UTF-8 bytes.
///
/// Pages are line-oriented, as the original server's were: the heading
/// line holds `</h1>`, and each post is one line after it, newest first,
/// carrying its id and a machine-readable date. A post's line (its
/// fragment) depends on the post alone, so it is rendered once and reused
/// on every page that shows it.
///
///     let fragment = PageRenderer.fragment(post, user: "alice")
///     let page = PageRenderer.mainPage(user: "alice", fragments: [fragment], olderArchive: nil)
///
/// Every page's links are relative to the public folder's top (a post's
/// own page, one folder down, says so with `<base href="../">`), so the
/// pages work under any prefix a static server gives them.
public enum PageRenderer {
    /// The marker of the line after which posts go.
    public static let headingMarker = "</h1>"

    /// One post as one line (no line break): an `<article>` with the post
    /// id, its title linking to its own page, its date (and the date of
    /// its last edit), its place, its photos, and its text (its URLs
    /// linked, `LinkedText`).
    public static func fragment(_ post: PostRecord, user: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(200 + post.title.utf8.count + post.content.utf8.count + post.photos.count * 160)
        out += articleStart
        out += Array(String(post.id).utf8)
        out += titleStart
        HTMLEscape.append(postFile(user: user, id: post.id), to: &out)
        out += titleLink
        HTMLEscape.append(post.title, to: &out)
        out += dateStart
        out += Array(PostDate.machine(post.createdAt).utf8)
        out += dateMiddle
        out += Array(PostDate.human(post.createdAt).utf8)
        if let edited = post.updatedAt {
            out += editedStart
            out += Array(PostDate.machine(edited).utf8)
            out += dateMiddle
            out += Array(PostDate.human(edited).utf8)
        }
        out += datesEnd
        if let place = post.place { appendPlace(place, user: user, to: &out) }
        appendPhotos(post.photos, base: "", to: &out)
        out += contentStart
        LinkedText.append(post.content, to: &out)
        if post.categories.isEmpty {
            out += articleEnd
        } else {
            // After the text, not in it (its microformats' e-content).
            out += contentEnd
            appendTags(post.categories, content: post.content, to: &out)
            out += postEnd
        }
        return out
    }

    /// A post's place as a link to OpenStreetMap's map at that point
    /// (the map comes from OpenStreetMap in the reader's browser; blogd
    /// sends no location anywhere).
    /// Then the blog's map page, with every placed post.
    static func appendPlace(_ place: Place, user: String, to out: inout [UInt8]) {
        // An `h-geo` as the post's `p-location`, its coordinates marked.
        out += Array("<p class=\"place p-location h-geo\"><a href=\"".utf8)
        HTMLEscape.append(openStreetMapURL(place), to: &out)
        out += Array("\">📍 <span class=\"p-latitude\">".utf8)
        HTMLEscape.append(place.latitude, to: &out)
        out += Array("</span>, <span class=\"p-longitude\">".utf8)
        HTMLEscape.append(place.longitude, to: &out)
        out += Array("</span></a> · <a href=\"".utf8)
        HTMLEscape.append(MapPage.file(user: user), to: &out)
        out += Array("\">all places</a></p>".utf8)
    }

    /// OpenStreetMap's map at `place`, marked.
    static func openStreetMapURL(_ place: Place) -> String {
        let (lat, lon) = (place.latitude, place.longitude)
        return "https://www.openstreetmap.org/?mlat=\(lat)&mlon=\(lon)#map=16/\(lat)/\(lon)"
    }

    /// What a post's text weighs on a page: its title and content as
    /// escaped, the part of its fragment that varies (with its photos'
    /// markup, `weight(title:content:photos:)`).
    public static func weight(title: String, content: String) -> Int {
        HTMLEscape.multilineCount(title) + LinkedText.count(content)
    }

    /// A user's main page: `fragments` newest first, linking to archive
    /// page `olderArchive` when there is one.
    /// `head` goes into the head (`micropubLink`).
    public static func mainPage(user: String, fragments: [[UInt8]], olderArchive: Int?, head: [UInt8] = []) -> [UInt8] {
        mainPage(blog: BlogIdentity(user: user), fragments: fragments, olderArchive: olderArchive, head: head)
    }

    /// `mainPage(user:…)` of a blog with its settings: their title, the
    /// description under it, the author's card (an `h-feed`).
    public static func mainPage(blog: BlogIdentity, fragments: [[UInt8]], olderArchive: Int?, head: [UInt8] = []) -> [UInt8] {
        let user = blog.user
        var nav = olderArchive.map { [(archiveFile(user: user, number: $0), "Older posts")] } ?? []
        nav.append((IndexPage.fileName, "All blogs"))
        return document(title: blog.settings.title ?? "\(user) – blog", heading: blog.name,
                        fragments: fragments.isEmpty ? [noPosts] : fragments,
                        nav: nav, feeds: feeds(user: user), head: blog.descriptionMeta + actorLink(blog) + head,
                        mainClass: feedClass, headingClass: feedHeadingClass, afterHeading: blog.feedHeader, searchBlog: user)
    }

    /// Archive page `number` of `user`: the posts of page group `number`.
    public static func archivePage(user: String, number: Int, fragments: [[UInt8]], head: [UInt8] = []) -> [UInt8] {
        archivePage(blog: BlogIdentity(user: user), number: number, fragments: fragments, head: head)
    }

    /// `archivePage(user:…)` of a blog with its settings.
    public static func archivePage(blog: BlogIdentity, number: Int, fragments: [[UInt8]], head: [UInt8] = []) -> [UInt8] {
        let user = blog.user
        var nav = [(mainFile(user: user), "Newest posts")]
        if number > 1 { nav.append((archiveFile(user: user, number: number - 1), "Older posts")) }
        nav.append((IndexPage.fileName, "All blogs"))
        return document(title: blog.settings.title.map { "\($0) (\(number))" } ?? "\(user) (\(number)) – blog",
                        heading: "\(blog.name) · archive \(number)",
                        fragments: fragments.isEmpty ? [noPosts] : fragments, nav: nav, feeds: feeds(user: user),
                        head: blog.descriptionMeta + head,
                        mainClass: feedClass, headingClass: feedHeadingClass, afterHeading: blog.feedHeader, searchBlog: user)
    }

    /// A post's own page, at a URL that never changes (`postFile`): the
    /// post, and links to the posts just older and newer, the blog and
    /// the list of blogs.
    /// `responses`: its Webmentions' block (`ResponsesRenderer.block`), under it.
    public static func postPage(user: String, title: String, fragment: [UInt8], older: Int64?, newer: Int64?,
                                head: [UInt8] = [], responses: [UInt8] = []) -> [UInt8] {
        postPage(blog: BlogIdentity(user: user), post: PostMeta(title: title), fragment: fragment, older: older,
                 newer: newer, head: head, responses: responses)
    }

    /// `postPage(user:…)` of a blog with its settings: its head says where
    /// the page is for good and what it shows (`rel=canonical`, a meta
    /// description, OpenGraph), its `h-entry` names its author.
    public static func postPage(blog: BlogIdentity, post: PostMeta, fragment: [UInt8], older: Int64?, newer: Int64?,
                                head: [UInt8] = [], responses: [UInt8] = []) -> [UInt8] {
        let user = blog.user
        var nav: [(href: String, text: String)] = []
        if let older { nav.append((postFile(user: user, id: older), "← Older post")) }
        if let newer { nav.append((postFile(user: user, id: newer), "Newer post →")) }
        nav.append((mainFile(user: user), blog.settings.title ?? "\(user)’s blog"))
        nav.append((IndexPage.fileName, "All blogs"))
        return document(title: "\(post.title) – \(blog.name)", heading: blog.name,
                        fragments: responses.isEmpty ? [withAuthor(fragment, blog: blog)] : [withAuthor(fragment, blog: blog), responses],
                        nav: nav,
                        feeds: feeds(user: user), base: "../", head: postHead(blog: blog, post: post) + head, searchBlog: user)
    }

    /// The Micropub endpoint, relative to the public folder's root (post
    /// pages' `<base href="../">` makes it so there too): the page server
    /// serves it beside the pages.
    public static let micropubPath = "micropub"

    /// What a page's head says of the site's Micropub endpoint (W3C
    /// Micropub, 5.3: `<link rel="micropub" href="…">`), so that a client
    /// given a blog's address finds where to post; nothing without one.
    public static func micropubLink(_ endpoint: String?) -> [UInt8] {
        guard let endpoint else { return [] }
        var out = Array("<link rel=\"micropub\" href=\"".utf8)
        HTMLEscape.append(endpoint, to: &out)
        out += tagEnd
        return out
    }

    /// `alice/17.html`: a post's page, in a folder of its author's.
    public static func postFile(user: String, id: Int64) -> String {
        "\(user)/\(id).html"
    }

    /// `alice/17.html.gone`: marks a deleted post, whose page answers 410.
    public static func goneFile(user: String, id: Int64) -> String {
        postFile(user: user, id: id) + goneSuffix
    }

    public static let goneSuffix = ".gone"

    /// `alice.atom`: the blog's Atom feed.
    public static func feedFile(user: String) -> String {
        user + ".atom"
    }

    /// `index.atom`: the whole site's feed (`index` is no user's name).
    public static let siteFeedFile = "index.atom"

    private static func feeds(user: String) -> [(href: String, title: String)] {
        [(feedFile(user: user), "\(user) (Atom)"), (siteFeedFile, "All blogs (Atom)")]
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

    /// The shell every page shares: head (with its feeds, autodiscovered),
    /// heading line, one line per fragment, optional navigation, footer.
    /// `mainClass` is the `<main>` element's, `headingClass` the heading's;
    /// `afterHeading` follows the heading on its line.
    static func document(title: String, heading: String, fragments: [[UInt8]], nav: [(href: String, text: String)],
                         feeds: [(href: String, title: String)] = [], base: String? = nil,
                         head: [UInt8] = [], mainClass: String = "blog", headingClass: String = "blog-title",
                         afterHeading: [UInt8] = [], searchForm: Bool = true, searchBlog: String? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(fragments.reduce(800) { $0 + $1.count + 1 })
        out += documentStart
        HTMLEscape.append(title, to: &out)
        out += titleEnd
        if let base {
            out += baseStart
            HTMLEscape.append(base, to: &out)
            out += tagEnd
        }
        for feed in feeds {
            out += feedStart
            HTMLEscape.append(feed.href, to: &out)
            out += feedTitle
            HTMLEscape.append(feed.title, to: &out)
            out += tagEnd
        }
        out += head
        out += headEndToMain
        out += Array(mainClass.utf8)
        out += mainToHeading
        out += Array(headingClass.utf8)
        out += headingStart
        HTMLEscape.append(heading, to: &out)
        out += headingClose
        out += afterHeading
        out.append(UInt8(ascii: "\n"))
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
        if searchForm {
            appendSearchForm(blog: searchBlog, to: &out)
            out.append(UInt8(ascii: "\n"))
        }
        out += documentEnd
        return out
    }

    // The class names after the first are microformats2 (`h-entry` and
    // its properties; PageRenderer+Microformats says more).
    private static let articleStart = Array("<article class=\"post h-entry\" id=\"post-".utf8)
    private static let titleStart = Array("\"><h2 class=\"p-name\"><a class=\"u-url\" href=\"".utf8)
    private static let titleLink = Array("\">".utf8)
    private static let dateStart = Array("</a></h2><p class=\"date\"><time class=\"dt-published\" datetime=\"".utf8)
    private static let editedStart = Array("</time> · edited <time class=\"dt-updated\" datetime=\"".utf8)
    private static let noPosts = Array("<p class=\"empty\">No posts yet.</p>".utf8)
    private static let dateMiddle = Array("\">".utf8)
    private static let datesEnd = Array("</time></p>".utf8)
    private static let contentStart = Array("<div class=\"content e-content\">".utf8)
    private static let articleEnd = Array("</div></article>".utf8)
    private static let contentEnd = Array("</div>".utf8)
    private static let postEnd = Array("</article>".utf8)

    private static let documentStart = Array("""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>
        """.utf8)
    private static let titleEnd = Array("</title>\n".utf8)
    private static let baseStart = Array("<base href=\"".utf8)
    private static let feedStart = Array("<link rel=\"alternate\" type=\"application/atom+xml\" href=\"".utf8)
    private static let feedTitle = Array("\" title=\"".utf8)
    static let tagEnd = Array("\">\n".utf8)
    private static let headEndToMain = Array("""
        <link rel="stylesheet" href="style.css">
        </head>
        <body>
        <main class="
        """.utf8)
    private static let mainToHeading = Array("\">\n<h1 class=\"".utf8)
    private static let headingStart = Array("\">".utf8)
    private static let headingClose = Array("</h1>".utf8)
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
