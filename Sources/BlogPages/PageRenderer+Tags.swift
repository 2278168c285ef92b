import BlogModel

extension PageRenderer {
    /// The tags given beside a post's text that its text does not show as
    /// hashtags, as a line of links to their pages (class `p-category`);
    /// nothing when there are none. `base` goes before each address (""
    /// on the pages, the site's URL in a feed).
    static func appendTags(_ categories: [String], content: String, base: String = "", to out: inout [UInt8]) {
        // Most posts have none: no scan of the text for them.
        guard !categories.isEmpty else { return }
        // The post's tags (at most `Hashtags.maxPerPost`) that its text
        // does not link.
        let shown = Set(LinkedText.hashtags(in: content))
        let extra = Hashtags.tags(content: content, categories: categories).filter { !shown.contains($0) }
        guard !extra.isEmpty else { return }
        out += tagsStart
        for (index, tag) in extra.enumerated() {
            if index > 0 { out.append(UInt8(ascii: " ")) }
            out += tagLinkStart
            HTMLEscape.append(base + tagPage(tag), to: &out)
            out += tagLinkMiddle
            HTMLEscape.append(tag, to: &out)
            out += tagLinkEnd
        }
        out += tagsEnd
    }

    /// The address of the page of `tag` across blogs, relative to the
    /// public folder's top (`TagPages`); `user` narrows it to one blog.
    public static func tagPage(_ tag: String, user: String? = nil) -> String {
        "tags/" + Hashtags.pathSegment(tag) + (user.map { "?blog=" + $0 } ?? "")
    }

    /// The address of the feed of `tag`'s page (`tagPage`).
    public static func tagFeed(_ tag: String, user: String? = nil) -> String {
        "tags/" + Hashtags.pathSegment(tag) + ".atom" + (user.map { "?blog=" + $0 } ?? "")
    }

    private static let tagsStart = Array("<p class=\"tags\">Tags: ".utf8)
    private static let tagLinkStart = Array("<a class=\"p-category\" href=\"".utf8)
    private static let tagLinkMiddle = Array("\">#".utf8)
    private static let tagLinkEnd = Array("</a>".utf8)
    private static let tagsEnd = Array("</p>".utf8)
}

extension PageRenderer {
    /// The page of `tag`: across blogs, or `user`'s blog only; `posts`
    /// newest first, each under its author's name; `older` the id the
    /// next page starts below (nil on the last). Served at `tagPage` (one
    /// folder down, so its links go through `<base href="../">` as a
    /// post's page's do).
    public static func tagPage(tag: String, user: String?, posts: [AuthoredPost], older: Int64?,
                               head: [UInt8] = []) -> [UInt8] {
        let fragments = posts.map { byline($0.author) + fragment($0.post, user: $0.author) }
        var nav: [(href: String, text: String)] = []
        if let older { nav.append((tagPage(tag, user: user) + (user == nil ? "?" : "&") + "before=\(older)", "Older posts")) }
        if let user {
            nav.append((mainFile(user: user), "\(user)’s blog"))
            nav.append((tagPage(tag), "#\(tag) on all blogs"))
        }
        nav.append((IndexPage.fileName, "All blogs"))
        let title = "#\(tag)" + (user.map { " – \($0)" } ?? " – all blogs")
        return document(title: title, heading: "#\(tag)", fragments: fragments.isEmpty ? [noTaggedPosts] : fragments,
                        nav: nav, feeds: [(tagFeed(tag, user: user), "\(title) (Atom)")], base: "../", head: head,
                        searchBlog: user)
    }

    private static let noTaggedPosts = Array("<p class=\"empty\">No posts with this tag.</p>".utf8)
}
