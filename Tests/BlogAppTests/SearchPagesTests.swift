import BlogApp
import BlogCore
import BlogModel
import BlogTestSupport
import BlogWeb
import Foundation
import HTTPTypes
import Testing

/// Search from the pages (a GET form, no JavaScript) and as JSON for
/// apps: found by a word of the text, per blog and across blogs, paged,
/// bounded, each address within its budget.
@Suite
struct SearchPagesTests {
    let app: AppFixture
    let search: SearchPages

    init() throws {
        app = try AppFixture()
        let clock = app.blog.clock
        search = SearchPages(storage: app.blog.store, baseURL: AppFixture.base,
                             budget: ReadingBudget(perSecond: 1000, burst: 1000, now: { TestBlog.date(of: clock) }))
        var session = Session(peerAddress: "127.0.0.1")
        for line in ["register:alice:pw", "register:bob:pw", "newpost:alice:Fox:The quick brown fox",
                     "newpost:bob:Foxes:fox fox fox <b>", "newpost:alice:Other:nothing here"] {
            _ = app.blog.service.handle(message: Array(line.utf8), session: &session)
        }
        // index.html is otherwise written in the background, a moment
        // later: on a loaded machine, after the test looks.
        app.blog.service.writeIndex()
    }

    func get(_ target: String, from address: String = "198.51.100.7", using app: SearchPages? = nil) -> WebResponse {
        let parts = target.split(separator: "?", maxSplits: 1)
        return (app ?? search).respond(to: WebRequest(method: .get, path: String(parts[0]),
                                                      query: parts.count > 1 ? String(parts[1]) : "", peerAddress: address))
    }

    func object(_ response: WebResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func everyPageCarriesTheFormAndItFindsPosts() throws {
        let blogPage = try #require(app.file("alice.html"))
        #expect(blogPage.contains("<form class=\"search\" action=\"search\" method=\"get\" role=\"search\">"))
        #expect(blogPage.contains("<input type=\"hidden\" name=\"blog\" value=\"alice\">"))
        #expect(app.file("index.html")?.contains("action=\"search\"") == true)
        #expect(app.file("index.html")?.contains("name=\"blog\"") == false, "the index searches every blog")

        let all = get("/search?q=fox")
        #expect(all.status == .ok && all.headers[.contentType] == "text/html; charset=utf-8")
        #expect(all.text.contains("value=\"fox\""), "the form keeps the query")
        #expect(all.text.contains(">Foxes</a>") && all.text.contains(">Fox</a>") && !all.text.contains(">Other</a>"))
        #expect(all.text.range(of: ">Foxes</a>")!.lowerBound < all.text.range(of: ">Fox</a>")!.lowerBound, "ranked")
        #expect(all.text.contains("<p class=\"byline\"><a href=\"bob.html\">bob</a></p>"))
        #expect(!all.text.contains("<b>"), "text stays text")
        let alice = get("/search?q=FOX&blog=alice")
        #expect(alice.text.contains(">Fox</a>") && !alice.text.contains(">Foxes</a>"))
        #expect(alice.text.contains("href=\"search?q=FOX\">Search all blogs</a>"))
        #expect(get("/search?q=elephant").text.contains("No posts found."))
        #expect(get("/search").status == .ok && !get("/search").text.contains("No posts found."))
    }

    @Test func jsonForApps() throws {
        let answer = get("/search.json?q=fox&blog=bob")
        #expect(answer.status == .ok && answer.headers[.contentType] == "application/json")
        let found = try object(answer)
        let results = try #require(found["results"] as? [[String: Any]])
        #expect(results.count == 1 && results[0]["title"] as? String == "Foxes" && results[0]["author"] as? String == "bob")
        #expect((results[0]["url"] as? String)?.hasPrefix(AppFixture.base + "bob/") == true)
        #expect(found["next"] is NSNull && found["blog"] as? String == "bob" && found["query"] as? [String] == ["fox"])
        let missing = get("/search.json")
        let error = try object(missing)
        #expect(missing.status == .badRequest && error["error"] as? String == "invalid_request")
    }

    @Test func resultsArePaged() throws {
        var session = Session(peerAddress: "127.0.0.1")
        for index in 0..<(SearchPages.pageSize + 3) {
            _ = app.blog.service.handle(message: Array("newpost:alice:Walrus \(index):walrus".utf8), session: &session)
        }
        let first = try object(get("/search.json?q=walrus"))
        #expect((first["results"] as? [Any])?.count == SearchPages.pageSize)
        let next = try #require(first["next"] as? String)
        #expect(next == AppFixture.base + "search.json?q=walrus&page=2")
        let second = try object(get("/search.json?q=walrus&page=2"))
        #expect((second["results"] as? [Any])?.count == 3 && second["next"] is NSNull)
        #expect(get("/search?q=walrus").text.contains("href=\"search?q=walrus&amp;page=2\">More results</a>"))
    }

    @Test func badQueriesAreRefusedInWords() {
        let long = String(repeating: "a ", count: 120)
        for (query, words) in [("q=\(long)", "too long"), ("q=a+b+c+d+e+f+g+h+i", "At most 8 words"),
                               ("q=%22%3B", "letters and digits"), ("q=x&page=0", "page is a number"),
                               ("q=x&page=51", "page is a number"), ("q=x&blog=nobody", "No such blog")] {
            let page = get("/search?\(query)")
            #expect(page.status == .badRequest || page.status == .notFound, "\(query)")
            #expect(page.text.contains(words), "\(query): \(page.text.suffix(300))")
            #expect(get("/search.json?\(query)").status == page.status)
        }
    }

    @Test func eachAddressHasItsBudget() {
        let clock = app.blog.clock
        let tight = SearchPages(storage: app.blog.store, baseURL: AppFixture.base,
                                budget: ReadingBudget(perSecond: 0.5, burst: 2, now: { TestBlog.date(of: clock) }))
        #expect(get("/search?q=fox", using: tight).status == .ok)
        #expect(get("/search.json?q=fox", using: tight).status == .ok)
        let refused = get("/search.json?q=fox", using: tight)
        #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "2")
        #expect(get("/search?q=fox", from: "2001:db8::1", using: tight).status == .ok)
        #expect(get("/search?q=fox", from: "2001:db8::2", using: tight).status == .ok)
        #expect(get("/search?q=fox", from: "2001:db8::3", using: tight).status == .tooManyRequests, "one /64")
        clock.advance(by: 2)
        #expect(get("/search?q=fox", using: tight).status == .ok, "refilled")
    }
}
