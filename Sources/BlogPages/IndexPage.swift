import Foundation
import BlogModel

/// `index.html`: the most recently active blogs, newest first.
///
/// Bounded: it lists at most `limit` blogs (the storage returns no more),
/// so its cost does not grow with the number of users; a blog not on it
/// is still at `NAME.html`. Each blog is one line of its own
/// (`line(_:)`), so that a page can be put together from lines kept from
/// the last one (`SiteIndex`).
public enum IndexPage {
    public static let fileName = "index.html"
    /// Blogs listed at most.
    public static let limit = 1000

    /// The index of `blogs`, in the order given (the storage's: newest
    /// post first). Each line: the blog, its newest post's title linking
    /// to the post's page, its post count and the post's date.
    /// `head` goes into the head (`PageRenderer.micropubLink`).
    public static func render(_ blogs: [BlogEntry], head: [UInt8] = []) -> [UInt8] {
        render(lines: blogs.prefix(limit).map(line), head: head)
    }

    /// The index made of blogs' lines (`line(_:)`), in order; at most
    /// `limit` are shown.
    public static func render(lines blogs: [[UInt8]], head: [UInt8] = []) -> [UInt8] {
        var fragments: [[UInt8]] = []
        if blogs.isEmpty {
            fragments.append(empty)
        } else {
            fragments.reserveCapacity(min(blogs.count, limit) + 3)
            if blogs.count >= limit { fragments.append(note) }
            fragments.append(listStart)
            fragments += blogs.prefix(limit)
            fragments.append(listEnd)
        }
        return PageRenderer.document(title: "Blogs", heading: "Blogs", fragments: fragments, nav: [],
                                     feeds: [(PageRenderer.siteFeedFile, "All blogs (Atom)")], head: head)
    }

    /// One blog's line: a list item.
    public static func line(_ blog: BlogEntry) -> [UInt8] {
        let name = HTMLEscape.escape(blog.name)
        // Each blog an `h-card` (microformats2): its name and its page.
        var line = "<li class=\"h-card\"><a class=\"p-name u-url\" href=\"\(name).html\">\(name)</a>"
        if let id = blog.lastPostID, let title = blog.lastPostTitle, let date = blog.lastPostAt {
            let link = HTMLEscape.escape(PageRenderer.postFile(user: blog.name, id: id))
            line += " · <a href=\"\(link)\">\(HTMLEscape.escape(title))</a>"
            line += " · \(blog.postCount) post\(blog.postCount == 1 ? "" : "s")"
            line += " · <time datetime=\"\(PostDate.machine(date))\">\(PostDate.human(date))</time>"
        } else {
            line += " · <span class=\"empty\">no posts yet</span>"
        }
        return Array((line + "</li>").utf8)
    }

    private static let empty = Array("<p class=\"empty\">No blogs yet.</p>".utf8)
    private static let note = Array("<p class=\"note\">The \(limit) most recently active blogs.</p>".utf8)
    private static let listStart = Array("<ul class=\"blog-list\">".utf8)
    private static let listEnd = Array("</ul>".utf8)
}
