import BlogModel

/// The Webmentions shown under a post (its responses): counted by kind,
/// the newest `onPostPage` on the post's own page, every one on response
/// pages of `perPage` each (`alice/17.responses.2.html`), so that a post
/// with a thousand responses still has a page of bounded size.
///
/// Everything a source said is text: escaped here, never markup. Links go
/// only to `http`/`https` URLs, marked `rel="nofollow ugc"`.
public enum ResponsesRenderer {
    /// Responses listed on the post's own page, newest first.
    public static let onPostPage = 20
    /// Responses per response page.
    public static let perPage = 100

    /// `alice/17.responses.2.html`.
    public static func file(user: String, postID: Int64, page: Int) -> String {
        "\(user)/\(postID).responses.\(page).html"
    }

    /// How many response pages `total` responses take (none when they fit
    /// on the post's page).
    public static func pageCount(total: Int) -> Int {
        total <= onPostPage ? 0 : (total + perPage - 1) / perPage
    }

    /// The block under the post on its own page: counts, the newest
    /// responses, a link to the rest. Empty with none.
    public static func block(user: String, postID: Int64, counts: [Webmention.Kind: Int], newest: [Webmention]) -> [UInt8] {
        let total = counts.values.reduce(0, +)
        guard total > 0 else { return [] }
        var out = Array("<section class=\"responses\" id=\"responses\"><h2>Responses</h2>".utf8)
        appendCounts(counts, to: &out)
        appendList(newest, to: &out)
        if pageCount(total: total) > 0 {
            out += Array("<p class=\"more\"><a href=\"".utf8)
            HTMLEscape.append(file(user: user, postID: postID, page: 1), to: &out)
            out += Array("\">All \(total) responses</a></p>".utf8)
        }
        out += Array("</section>".utf8)
        return out
    }

    /// Response page `page` of `pages`, a document of its own.
    public static func page(user: String, postID: Int64, title: String, page: Int, pages: Int,
                            responses: [Webmention], head: [UInt8] = []) -> [UInt8] {
        var body = Array("<section class=\"responses\"><h2>Responses to <a href=\"".utf8)
        HTMLEscape.append(PageRenderer.postFile(user: user, id: postID), to: &body)
        body += Array("\">".utf8)
        HTMLEscape.appendMultiline(title, to: &body)
        body += Array("</a> (page \(page) of \(pages))</h2>".utf8)
        appendList(responses, to: &body)
        body += Array("</section>".utf8)
        var nav: [(href: String, text: String)] = []
        if page > 1 { nav.append((file(user: user, postID: postID, page: page - 1), "← Newer responses")) }
        if page < pages { nav.append((file(user: user, postID: postID, page: page + 1), "Older responses →")) }
        nav.append((PageRenderer.postFile(user: user, id: postID), "The post"))
        return PageRenderer.document(title: "Responses to \(title) – \(user)", heading: user, fragments: [body], nav: nav,
                                     base: "../", head: head)
    }

    static func appendCounts(_ counts: [Webmention.Kind: Int], to out: inout [UInt8]) {
        let names: [(Webmention.Kind, String, String)] = [
            (.reply, "reply", "replies"), (.like, "like", "likes"), (.repost, "repost", "reposts"),
            (.mention, "mention", "mentions"),
        ]
        let parts = names.compactMap { kind, one, many -> String? in
            guard let count = counts[kind], count > 0 else { return nil }
            return "<span class=\"\(kind.rawValue)-count\">\(count) \(count == 1 ? one : many)</span>"
        }
        out += Array("<p class=\"counts\">\(parts.joined(separator: " · "))</p>".utf8)
    }

    static func appendList(_ responses: [Webmention], to out: inout [UInt8]) {
        out += Array("<ol class=\"response-list\">".utf8)
        for response in responses { append(response, to: &out) }
        out += Array("</ol>".utf8)
    }

    /// One response: who, what kind, its name and text, where from.
    static func append(_ response: Webmention, to out: inout [UInt8]) {
        let content = response.content
        out += Array("<li class=\"h-cite \(content.kind.rawValue)\"><span class=\"p-author h-card\">".utf8)
        let name = content.authorName.isEmpty ? host(of: response.source) : content.authorName
        if isWebURL(content.authorURL) {
            out += Array("<a class=\"u-url p-name\" rel=\"nofollow ugc\" href=\"".utf8)
            HTMLEscape.append(content.authorURL, to: &out)
            out += Array("\">".utf8)
            HTMLEscape.appendMultiline(name, to: &out)
            out += Array("</a>".utf8)
        } else {
            out += Array("<span class=\"p-name\">".utf8)
            HTMLEscape.appendMultiline(name, to: &out)
            out += Array("</span>".utf8)
        }
        let verb = switch content.kind {
        case .reply: "replied"
        case .like: "liked this"
        case .repost: "reposted this"
        case .mention: "mentioned this"
        }
        out += Array("</span> <a class=\"u-url\" rel=\"nofollow ugc\" href=\"".utf8)
        HTMLEscape.append(response.source, to: &out)
        out += Array("\">\(verb)</a>".utf8)
        if !content.title.isEmpty && content.kind != .like && content.kind != .repost {
            out += Array(" <strong class=\"p-name\">".utf8)
            HTMLEscape.appendMultiline(content.title, to: &out)
            out += Array("</strong>".utf8)
        }
        if !content.text.isEmpty && (content.kind == .reply || content.kind == .mention) {
            out += Array("<p class=\"p-content\">".utf8)
            HTMLEscape.appendMultiline(content.text, to: &out)
            out += Array("</p>".utf8)
        }
        out += Array("</li>".utf8)
    }

    static func isWebURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return (lower.hasPrefix("https://") || lower.hasPrefix("http://"))
            && !text.unicodeScalars.contains { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }
    }

    static func host(of url: String) -> String {
        let rest = url.split(separator: "://", maxSplits: 1).last.map(String.init) ?? url
        return String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }
}
