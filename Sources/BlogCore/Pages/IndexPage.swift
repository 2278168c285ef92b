import Foundation

/// One blog on the index page.
public struct BlogEntry: Sendable, Equatable, Codable {
    public var name: String
    public var lastPostAt: Date?

    public init(name: String, lastPostAt: Date?) {
        self.name = name
        self.lastPostAt = lastPostAt
    }
}

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

    public static func render(_ blogs: [BlogEntry]) -> [UInt8] {
        let sorted = blogs.sorted { a, b in
            switch (a.lastPostAt, b.lastPostAt) {
            case let (x?, y?): x != y ? x > y : a.name.lowercased() < b.name.lowercased()
            case (_?, nil): true
            case (nil, _?): false
            case (nil, nil): a.name.lowercased() < b.name.lowercased()
            }
        }
        var lines: [String] = []
        if sorted.isEmpty {
            lines.append("<p class=\"empty\">No blogs yet.</p>")
        } else {
            if sorted.count >= limit {
                lines.append("<p class=\"note\">The \(limit) most recently active blogs.</p>")
            }
            lines.append("<ul class=\"blog-list\">")
            for blog in sorted.prefix(limit) {
                let name = HTMLEscape.escape(blog.name)
                let date = blog.lastPostAt.map {
                    "<time datetime=\"\(PostDate.machine($0))\">\(PostDate.human($0))</time>"
                } ?? "<time>no posts yet</time>"
                lines.append("<li><a href=\"\(name).html\">\(name)</a> \(date)</li>")
            }
            lines.append("</ul>")
        }
        return PageRenderer.document(title: "Blogs", heading: "Blogs", fragments: lines.map { Array($0.utf8) }, nav: [])
    }
}
