import BlogCore
import BlogModel
import BlogPages
import BlogWeb
import BlogWire
import Foundation
import HTTPTypes

/// The tag pages and their feeds, rendered from the database as they are
/// asked for (a post with tags writes no more files than one without):
///
/// - `/tags/NAME`: the posts tagged NAME on every blog, newest first,
///   `pageSize` a page (`?before=ID` for the next);
/// - `/tags/NAME?blog=alice`: alice's only;
/// - `/tags/NAME.atom` (and `?blog=alice`): their feed, the newest
///   `Feeds.entryLimit`.
///
/// No file of the public folder has such a name: a blog's files are
/// `NAME.html`, `NAME.K.html` and `NAME.atom` at the top and `ID.html`
/// in its folder, and a tag holds no `.`; the names `tags` and `search`
/// are not given to users. Every request is charged to its address
/// (`ReadingBudget`), and reads one range of an index and at most
/// `pageSize + 1` posts by key.
public struct TagPages: WebApplication {
    public static let prefix = "/tags/"
    public static let pageSize = 20

    let storage: any BlogStorage
    let feeds: Feeds
    let head: [UInt8]
    public let budget: ReadingBudget

    public init(storage: any BlogStorage, feeds: Feeds, head: [UInt8] = [],
                budget: ReadingBudget = ReadingBudget(perSecond: 5, burst: 20)) {
        self.storage = storage
        self.feeds = feeds
        self.head = head
        self.budget = budget
    }

    /// `/tags/WORD` or `/tags/WORD.atom`, WORD without `/` or `.`.
    public func handles(path: String) -> Bool { Self.route(path) != nil }

    public func bodyLimit(path: String) -> Int { 0 }

    /// The tag's word as sent (percent-encoded) and whether the feed is asked.
    static func route(_ path: String) -> (word: Substring, feed: Bool)? {
        guard path.hasPrefix(prefix) else { return nil }
        var word = path.dropFirst(prefix.count)
        let feed = word.hasSuffix(".atom")
        if feed { word = word.dropLast(5) }
        guard !word.isEmpty, !word.contains("/"), !word.contains(".") else { return nil }
        return (word, feed)
    }

    public func respond(to request: WebRequest) -> WebResponse {
        guard request.method == .get || request.method == .head else {
            return Self.plain(.methodNotAllowed, "Tag pages are read with GET.\n", extra: [.allow: "GET, HEAD"])
        }
        guard budget.take(for: request.peerAddress) else { return Self.refused(budget.refusal) }
        guard let (word, feed) = Self.route(request.path) else { return Self.plain(.notFound, "No such page.\n") }
        guard let decoded = String(word).removingPercentEncoding, !decoded.hasPrefix("#"),
              let tag = Hashtags.normalized(decoded) else {
            return Self.plain(.notFound, "No such tag: a tag is 1 to \(Hashtags.maxLength) letters, digits, _ or -.\n")
        }
        let form = FormData(query: request.query)
        var before: Int64?
        if let text = form["before"] {
            guard let id = Int64(text), id > 0 else { return Self.plain(.badRequest, "before is a post id.\n") }
            before = id
        }
        do {
            var userID: Int64?, user: String?
            if let name = form["blog"] {
                // A suspended user's blog stays readable, its tag pages too.
                guard let username = try? Username(name), let found = try storage.user(named: username.value) else {
                    return Self.plain(.notFound, "No such blog.\n")
                }
                (userID, user) = (found.id, found.name)
            }
            if feed {
                let posts = try storage.taggedPosts(tag, ofUserID: userID, before: nil, limit: Feeds.entryLimit)
                let title = "#\(tag)" + (user.map { " – \($0)" } ?? " – all blogs")
                let body = feeds.tag(tag, title: title, path: PageRenderer.tagFeed(tag, user: user),
                                     pagePath: PageRenderer.tagPage(tag, user: user), posts: posts)
                return WebResponse(status: .ok, contentType: "application/atom+xml; charset=utf-8", body: body,
                                   headers: [.cacheControl: "public, max-age=60"])
            }
            var posts = try storage.taggedPosts(tag, ofUserID: userID, before: before, limit: Self.pageSize + 1)
            let older = posts.count > Self.pageSize ? posts[Self.pageSize - 1].post.id : nil
            posts = Array(posts.prefix(Self.pageSize))
            let body = PageRenderer.tagPage(tag: tag, user: user, posts: posts, older: older, head: head)
            return WebResponse(status: .ok, contentType: "text/html; charset=utf-8", body: body,
                               headers: [.cacheControl: "public, max-age=60"])
        } catch {
            return Self.plain(.serviceUnavailable, "The database did not answer; try again.\n", extra: [.retryAfter: "5"])
        }
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String, extra: HTTPFields = [:]) -> WebResponse {
        WebResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8), headers: extra)
    }

    static func refused(_ parts: WebResponseParts) -> WebResponse {
        plain(parts.status, parts.text, extra: [.retryAfter: String(parts.retryAfter)])
    }
}
