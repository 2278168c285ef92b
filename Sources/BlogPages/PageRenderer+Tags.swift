import BlogModel

extension PageRenderer {
    /// The tags given beside a post's text that its text does not show as
    /// hashtags, as a line of links to their pages (class `p-category`);
    /// nothing when there are none. `base` goes before each address (""
    /// on the pages, the site's URL in a feed).
    static func appendTags(_ categories: [String], content: String, base: String = "", to out: inout [UInt8]) {
        // Most posts have none: no scan of the text for them.
        guard !categories.isEmpty else { return }
        let shown = Set(LinkedText.hashtags(in: content))
        let extra = categories.filter { !shown.contains($0) }
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
