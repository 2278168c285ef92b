import BlogWire

/// The blog's own lines of its pages, marked up as microformats2 for
/// readers and the IndieWeb's parsers (`mf2py`): a main or archive page is
/// an `h-feed` (its heading the `p-name`, the description its `p-summary`,
/// the author's `p-author h-card`) of `h-entry` posts; a post's own page
/// is the post's `h-entry`, with the author's card in it. A post's
/// fragment carries its own properties (`p-name`, `u-url`,
/// `dt-published`, `dt-updated`, `p-location`, `u-photo`, `e-content`)
/// as plain class names, at no cost per post; anything else a fragment
/// marks inside its `<article>` (a `p-category`) is the entry's too.
extension PageRenderer {
    /// `<main>`'s class on a page of posts.
    static let feedClass = "blog h-feed"
    /// The heading's class there: the feed's name.
    static let feedHeadingClass = "blog-title p-name"

    /// What follows a page of posts' heading, on its line: the description
    /// and the author's card.
    static func feedHeader(_ blog: BlogIdentity) -> [UInt8] {
        var out: [UInt8] = []
        if let description = blog.settings.description {
            out += Array("<p class=\"blog-description p-summary\">".utf8)
            HTMLEscape.append(description, to: &out)
            out += Array("</p>".utf8)
        }
        out += Array("<p class=\"blog-author\">by ".utf8)
        appendAuthorCard(blog, to: &out)
        out += Array("</p>".utf8)
        return out
    }

    /// The author's `p-author h-card`: photo (when set), name, and the
    /// blog's main page as their URL. Every link is relative to the public
    /// folder's top, as the pages' links are.
    static func appendAuthorCard(_ blog: BlogIdentity, to out: inout [UInt8]) {
        out += Array("<span class=\"p-author h-card\">".utf8)
        if let photo = blog.settings.authorPhoto {
            out += Array("<img class=\"u-photo author-photo\" src=\"".utf8)
            HTMLEscape.append(photo, to: &out)
            out += Array("\" alt=\"\" width=\"32\" height=\"32\"> ".utf8)
        }
        out += Array("<a class=\"p-name u-url\" href=\"".utf8)
        HTMLEscape.append(mainFile(user: blog.user), to: &out)
        out += Array("\">".utf8)
        HTMLEscape.append(blog.authorName, to: &out)
        out += Array("</a></span>".utf8)
    }

    /// A post's fragment with its author's card as the last line of its
    /// `h-entry`, for its own page (the fragment itself, shared with the
    /// pages of posts whose feed names the author, has none).
    static func withAuthor(_ fragment: [UInt8], blog: BlogIdentity) -> [UInt8] {
        guard fragment.count >= articleClose.count, fragment.suffix(articleClose.count).elementsEqual(articleClose) else {
            return fragment
        }
        var out = Array(fragment.dropLast(articleClose.count))
        out.reserveCapacity(fragment.count + 160)
        out += Array("<p class=\"post-author\">by ".utf8)
        appendAuthorCard(blog, to: &out)
        out += Array("</p>".utf8)
        out += articleClose
        return out
    }

    private static let articleClose = Array("</article>".utf8)
}
