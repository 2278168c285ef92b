import BlogWire

/// What a page's head tells search engines and link previews: a post's
/// page names its one URL (`rel=canonical`), describes itself (`<meta
/// name="description">`) and carries OpenGraph (`og:title`, `og:type`
/// `article`, `og:url`, `og:description`, `og:image`, `og:site_name`); a
/// blog's pages carry its description. Every value is escaped.
extension PageRenderer {
    /// The head lines of a post's page; the absolute ones only when the
    /// site's URL is known.
    static func postHead(blog: BlogIdentity, post: PostMeta) -> [UInt8] {
        var out: [UInt8] = []
        let url = post.id.flatMap { blog.absolute(postFile(user: blog.user, id: $0)) }
        if let url { line(out: &out, "<link rel=\"canonical\" href=\"", url) }
        let description = post.description.isEmpty ? post.title : post.description
        line(out: &out, "<meta name=\"description\" content=\"", description)
        line(out: &out, "<meta property=\"og:type\" content=\"", "article")
        line(out: &out, "<meta property=\"og:title\" content=\"", post.title)
        if let url { line(out: &out, "<meta property=\"og:url\" content=\"", url) }
        line(out: &out, "<meta property=\"og:description\" content=\"", description)
        if let image = post.image.flatMap(blog.absolute) { line(out: &out, "<meta property=\"og:image\" content=\"", image) }
        line(out: &out, "<meta property=\"og:site_name\" content=\"", blog.name)
        out += objectLink(blog, id: post.id)
        return out
    }

    /// A blog page's description line, when the blog has one.
    static func descriptionMeta(_ blog: BlogIdentity) -> [UInt8] {
        guard let description = blog.settings.description else { return [] }
        var out: [UInt8] = []
        line(out: &out, "<meta name=\"description\" content=\"", description)
        return out
    }

    private static func line(out: inout [UInt8], _ start: String, _ value: String) {
        out += Array(start.utf8)
        HTMLEscape.append(value, to: &out)
        out += Array("\">\n".utf8)
    }
}

extension BlogIdentity {
    var descriptionMeta: [UInt8] { PageRenderer.descriptionMeta(self) }
    var feedHeader: [UInt8] { PageRenderer.feedHeader(self) }
}
