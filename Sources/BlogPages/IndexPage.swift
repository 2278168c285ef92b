import Foundation
import BlogModel

/// `index.html`: every blog, most recently active first.
/// `index.html`: the most recently active blogs, newest first.
///
/// Bounded: it lists at most `limit` blogs (the storage returns no more),
/// so its cost does not grow with the number of users; a blog not on it
/// is still at `NAME.html`.
public enum IndexPage {
    public static let fileName = "index.html"
    /// Blogs listed at most.
    public static let limit = 1000

    /// The index of `blogs`, in the order given (the storage's: newest
    /// post first). Each line: the blog, its newest post's title linking
    /// to the post's page, its post count and the post's date.
    /// `head` goes into the head (`PageRenderer.micropubLink`).
    public static func render(_ blogs: [BlogEntry], head: [UInt8] = []) -> [UInt8] {
        var lines: [String] = []
        if blogs.isEmpty {
            lines.append("<p class=\"empty\">No blogs yet.</p>")
        } else {
            if blogs.count >= limit {
                lines.append("<p class=\"note\">The \(limit) most recently active blogs.</p>")
            }
            lines.append("<ul class=\"blog-list\">")
            for blog in blogs.prefix(limit) {
                let name = HTMLEscape.escape(blog.name)
                var line = "<li><a href=\"\(name).html\">\(name)</a>"
                if let id = blog.lastPostID, let title = blog.lastPostTitle, let date = blog.lastPostAt {
                    let link = HTMLEscape.escape(PageRenderer.postFile(user: blog.name, id: id))
                    line += " · <a href=\"\(link)\">\(HTMLEscape.escape(title))</a>"
                    line += " · \(blog.postCount) post\(blog.postCount == 1 ? "" : "s")"
                    line += " · <time datetime=\"\(PostDate.machine(date))\">\(PostDate.human(date))</time>"
                } else {
                    line += " · <span class=\"empty\">no posts yet</span>"
                }
                lines.append(line + "</li>")
            }
            lines.append("</ul>")
        }
        return PageRenderer.document(title: "Blogs", heading: "Blogs", fragments: lines.map { Array($0.utf8) }, nav: [],
                                     feeds: [(PageRenderer.siteFeedFile, "All blogs (Atom)")], head: head)
    }
}
