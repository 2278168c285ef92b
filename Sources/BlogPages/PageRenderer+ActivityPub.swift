/// What a blog's pages tell a fediverse server: the JSON beside each page
/// (`<link rel="alternate" type="application/activity+json">`), the
/// blog's actor on its main page and the post's object on a post's page.
/// Mastodon, given a page's URL, reads this link. It is absolute: Mastodon
/// does not resolve it against the page's `<base>`.
extension PageRenderer {
    /// The main page's link to the blog's actor; nothing when the blog is
    /// not served as one or the site's URL is not known.
    static func actorLink(_ blog: BlogIdentity) -> [UInt8] {
        guard blog.activityPub, let url = blog.absolute(actorFile(user: blog.user)) else { return [] }
        return activityLink(url)
    }

    /// A post page's link to the post's object.
    static func objectLink(_ blog: BlogIdentity, id: Int64?) -> [UInt8] {
        guard blog.activityPub, let id, let url = blog.absolute(objectFile(user: blog.user, id: id)) else { return [] }
        return activityLink(url)
    }

    private static func activityLink(_ url: String) -> [UInt8] {
        var out = Array("<link rel=\"alternate\" type=\"application/activity+json\" href=\"".utf8)
        HTMLEscape.append(url, to: &out)
        out += tagEnd
        return out
    }
}
