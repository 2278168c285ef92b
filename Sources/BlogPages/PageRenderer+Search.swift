import BlogModel
import Foundation

extension PageRenderer {
    /// The search page's address, relative to the public folder's top
    /// (served by the page server, `SearchPages`).
    public static let searchPath = "search"

    /// The search form every page carries (a GET form: no JavaScript);
    /// on a blog's pages it searches that blog (`blog`), elsewhere every
    /// blog. `query` fills it in again on the results page.
    static func appendSearchForm(blog: String?, query: String = "", to out: inout [UInt8]) {
        out += searchFormStart
        HTMLEscape.append(query, to: &out)
        out += searchFormQueryEnd
        if let blog {
            out += searchFormBlog
            HTMLEscape.append(blog, to: &out)
            out += searchFormBlogEnd
        }
        out += searchFormEnd
    }

    /// The results of searching for `query` (as typed), on `user`'s blog
    /// or every blog: `posts` best first, each under its author's name,
    /// page `page`; `more` when another page follows. `problem` (the
    /// query refused, in words) or no query shows the form alone.
    public static func searchPage(query: String, user: String?, posts: [AuthoredPost], page: Int, more: Bool,
                                  problem: String? = nil, head: [UInt8] = []) -> [UInt8] {
        var top: [UInt8] = []
        appendSearchForm(blog: user, query: query, to: &top)
        if let problem {
            top += Array("<p class=\"error\">".utf8)
            HTMLEscape.append(problem, to: &top)
            top += Array("</p>".utf8)
        } else if !query.isEmpty, posts.isEmpty {
            top += Array("<p class=\"empty\">No posts found.</p>".utf8)
        }
        var fragments = [top]
        fragments += posts.map { byline($0.author) + fragment($0.post, user: $0.author) }
        var nav: [(href: String, text: String)] = []
        if more { nav.append((searchAddress(query: query, user: user, page: page + 1), "More results")) }
        if let user {
            nav.append((searchAddress(query: query, user: nil, page: 1), "Search all blogs"))
            nav.append((mainFile(user: user), "\(user)’s blog"))
        }
        nav.append((IndexPage.fileName, "All blogs"))
        let title = query.isEmpty ? "Search" : "Search: \(query)"
        return document(title: title + (user.map { " – \($0)" } ?? ""), heading: user.map { "Search \($0)’s blog" } ?? "Search",
                        fragments: fragments, nav: nav, head: head, searchForm: false)
    }

    /// The address of results page `page` of `query` (relative).
    public static func searchAddress(query: String, user: String?, page: Int, json: Bool = false) -> String {
        var address = searchPath + (json ? ".json" : "") + "?q=" + queryEncoded(query)
        if let user { address += "&blog=" + queryEncoded(user) }
        if page > 1 { address += "&page=\(page)" }
        return address
    }

    private static func queryEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? ""
    }

    /// A line naming a post's author over it, on pages of several blogs.
    static func byline(_ author: String) -> [UInt8] {
        var line = Array("<p class=\"byline\"><a href=\"".utf8)
        HTMLEscape.append(mainFile(user: author), to: &line)
        line += Array("\">".utf8)
        HTMLEscape.append(author, to: &line)
        line += Array("</a></p>".utf8)
        return line
    }

    private static let queryAllowed = CharacterSet.alphanumerics.subtracting(CharacterSet(charactersIn: "^`"))
        .union(CharacterSet(charactersIn: "-._~")).intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
    private static let searchFormStart = Array("""
        <form class="search" action="search" method="get" role="search"><input type="search" name="q" \
        maxlength="\(SearchQuery.maxBytes)" aria-label="Search" placeholder="Search" value="
        """.utf8)
    private static let searchFormQueryEnd = Array("\">".utf8)
    private static let searchFormBlog = Array("<input type=\"hidden\" name=\"blog\" value=\"".utf8)
    private static let searchFormBlogEnd = Array("\">".utf8)
    private static let searchFormEnd = Array("<button type=\"submit\">Search</button></form>".utf8)
}
