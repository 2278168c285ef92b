import BlogCore
import BlogModel
import BlogPages
import BlogWeb
import BlogWire
import Foundation
import HTTPTypes

/// Search, for readers and for apps, answered from the database's
/// full-text index (`SearchStorage`):
///
/// - `GET /search?q=WORDS[&blog=alice][&page=N]`: a results page (the form
///   every page carries sends here; no JavaScript);
/// - `GET /search.json?q=…`: the same results as JSON, with the address of
///   the next page.
///
/// Bounded: a query is at most `SearchQuery.maxBytes` bytes and
/// `SearchQuery.maxTerms` words, each matched whole (no prefixes, no
/// syntax); `pageSize` results a page, ranked among the newest
/// `SearchQuery.candidates` matches, so at most `maxPage` pages; and each
/// address has its budget (`ReadingBudget`, 2 a second, burst 10).
public struct SearchPages: WebApplication {
    public static let path = "/search"
    public static let jsonPath = "/search.json"
    public static let pageSize = 20
    public static let maxPage = SearchQuery.candidates / pageSize

    let storage: any BlogStorage
    let baseURL: String
    let head: [UInt8]
    public let budget: ReadingBudget

    /// `baseURL` (ending with `/`) makes the JSON's addresses absolute.
    public init(storage: any BlogStorage, baseURL: String, head: [UInt8] = [],
                budget: ReadingBudget = ReadingBudget(perSecond: 2, burst: 10)) {
        self.storage = storage
        self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        self.head = head
        self.budget = budget
    }

    public func handles(path: String) -> Bool { path == Self.path || path == Self.jsonPath }

    public func bodyLimit(path: String) -> Int { 0 }

    /// What a request asks, checked.
    struct Ask {
        var text = ""
        var query: SearchQuery?
        var user: UserRecord?
        var page = 1
        /// Why it cannot be answered, in words, and the status.
        var problem: (status: HTTPResponse.Status, text: String)?
    }

    public func respond(to request: WebRequest) -> WebResponse {
        let json = request.path == Self.jsonPath
        guard request.method == .get || request.method == .head else {
            return answer(json, .methodNotAllowed, "Search with GET.", extra: [.allow: "GET, HEAD"])
        }
        guard budget.take(for: request.peerAddress) else {
            let refusal = budget.refusal
            return answer(json, refusal.status, refusal.text, extra: [.retryAfter: String(refusal.retryAfter)])
        }
        var ask: Ask
        do {
            ask = try self.ask(FormData(query: request.query))
        } catch {
            return answer(json, .serviceUnavailable, "The database did not answer; try again.", extra: [.retryAfter: "5"])
        }
        var posts: [AuthoredPost] = []
        var more = false
        if ask.problem == nil, let query = ask.query {
            do {
                posts = try storage.searchPosts(query, ofUserID: ask.user?.id, offset: (ask.page - 1) * Self.pageSize,
                                                limit: Self.pageSize + 1)
            } catch {
                return answer(json, .serviceUnavailable, "The database did not answer; try again.", extra: [.retryAfter: "5"])
            }
            more = posts.count > Self.pageSize && ask.page < Self.maxPage
            posts = Array(posts.prefix(Self.pageSize))
        } else if json, ask.problem == nil {
            ask.problem = (.badRequest, "Say what to search for: q=WORDS.")
        }
        if json {
            if let problem = ask.problem { return answer(true, problem.status, problem.text) }
            return results(ask, posts, more: more)
        }
        let body = PageRenderer.searchPage(query: ask.text, user: ask.user?.name, posts: posts, page: ask.page, more: more,
                                           problem: ask.problem?.text, head: head)
        return WebResponse(status: ask.problem?.status ?? .ok, contentType: "text/html; charset=utf-8", body: body,
                           headers: [.cacheControl: "no-cache"])
    }

    /// The query, blog and page of `form`; a problem for what is wrong.
    func ask(_ form: FormData) throws(StorageError) -> Ask {
        var ask = Ask()
        guard !form.isRefused else {
            ask.problem = (.badRequest, "The query is not UTF-8.")
            return ask
        }
        ask.text = String((form["q"] ?? "").prefix(SearchQuery.maxBytes * 2))
        if let name = form["blog"], !name.isEmpty {
            // A suspended user's blog stays readable, and searchable.
            guard let username = try? Username(name), let user = try storage.user(named: username.value) else {
                ask.problem = (.notFound, "No such blog.")
                return ask
            }
            ask.user = user
        }
        if let text = form["page"] {
            guard let page = Int(text), (1...Self.maxPage).contains(page) else {
                ask.problem = (.badRequest, "page is a number from 1 to \(Self.maxPage).")
                return ask
            }
            ask.page = page
        }
        guard !ask.text.allSatisfy(\.isWhitespace) else { return ask }
        do {
            ask.query = try SearchQuery(ask.text)
        } catch {
            ask.problem = (.badRequest, Self.explain(error))
        }
        return ask
    }

    static func explain(_ problem: SearchQuery.Problem) -> String {
        switch problem {
        case .empty: "Search for words: letters and digits."
        case .tooLong: "The query is too long: at most \(SearchQuery.maxBytes) bytes."
        case .tooManyTerms: "At most \(SearchQuery.maxTerms) words a search."
        case .termTooLong: "A word is too long: at most \(SearchQuery.maxTermLength) characters."
        }
    }

    private func results(_ ask: Ask, _ posts: [AuthoredPost], more: Bool) -> WebResponse {
        let user = ask.user?.name
        let items: [[String: Any]] = posts.map { found in
            var item: [String: Any] = [
                "url": baseURL + PageRenderer.postFile(user: found.author, id: found.post.id),
                "author": found.author, "title": found.post.title, "content": found.post.content,
                "published": found.post.createdAt.formatted(.iso8601), "tags": found.post.tags,
            ]
            if let updated = found.post.updatedAt { item["updated"] = updated.formatted(.iso8601) }
            return item
        }
        var object: [String: Any] = ["query": ask.query?.terms ?? [], "page": ask.page, "results": items,
                                     "blog": user.map { $0 as Any } ?? NSNull()]
        object["next"] = more ? baseURL + PageRenderer.searchAddress(query: ask.text, user: user, page: ask.page + 1, json: true)
                              : NSNull()
        return Self.json(object, status: .ok)
    }

    private func answer(_ json: Bool, _ status: HTTPResponse.Status, _ text: String, extra: HTTPFields = [:]) -> WebResponse {
        guard json else {
            return WebResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8),
                               headers: extra)
        }
        return Self.json(["error": status == .tooManyRequests ? "too_many_requests" : "invalid_request",
                          "error_description": text], status: status, extra: extra)
    }

    static func json(_ object: Any, status: HTTPResponse.Status, extra: HTTPFields = [:]) -> WebResponse {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        var headers: HTTPFields = [.cacheControl: "no-cache", HTTPField.Name("X-Content-Type-Options")!: "nosniff"]
        headers.append(contentsOf: extra)
        return WebResponse(status: status, contentType: "application/json", body: Array(body), headers: headers)
    }
}
