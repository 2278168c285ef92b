import BlogApp
import BlogCore
import BlogModel
import BlogTestSupport
import BlogWeb
import Foundation
import HTTPTypes
import Testing

/// The tag pages and feeds, served from the database: posts from the
/// 2009 protocol carry their hashtags there, per blog and across blogs,
/// paged, each feed valid Atom, each address within its budget.
@Suite
struct TagPagesTests {
    let app: AppFixture
    let pages: TagPages

    init() throws {
        app = try AppFixture()
        let clock = app.blog.clock
        pages = TagPages(storage: app.blog.store, feeds: app.blog.service.pageFeeds, head: app.blog.service.pageHead,
                         budget: ReadingBudget(perSecond: 1000, burst: 1000, now: { TestBlog.date(of: clock) }))
        var session = Session(peerAddress: "127.0.0.1")
        for line in ["register:alice:pw", "register:bob:pw", "newpost:alice:Swift one:Hello #Swift",
                     "newpost:bob:Bob's:Also #swift and #linux", "newpost:alice:Plain:no tags here"] {
            _ = app.blog.service.handle(message: Array(line.utf8), session: &session)
        }
    }

    func get(_ target: String, from address: String = "198.51.100.7", using app: TagPages? = nil,
             method: HTTPRequest.Method = .get) -> WebResponse {
        let parts = target.split(separator: "?", maxSplits: 1)
        return (app ?? pages).respond(to: WebRequest(method: method, path: String(parts[0]),
                                                     query: parts.count > 1 ? String(parts[1]) : "", peerAddress: address))
    }

    @Test func aTagPageShowsItsPostsAcrossBlogsAndPerBlog() throws {
        let all = get("/tags/swift")
        #expect(all.status == .ok && all.headers[.contentType] == "text/html; charset=utf-8")
        #expect(all.text.contains("<base href=\"../\">") && all.text.contains("<h1 class=\"blog-title\">#swift</h1>"))
        #expect(all.text.contains("Swift one") && all.text.contains("Bob&#39;s") && !all.text.contains("Plain"))
        #expect(all.text.contains("<p class=\"byline\"><a href=\"bob.html\">bob</a></p>"))
        #expect(all.text.contains("<a class=\"p-category\" href=\"tags/swift\">#Swift</a>"))
        #expect(all.text.contains("href=\"tags/swift.atom\""), "the feed is named in the head")
        #expect(all.text.range(of: "Bob&#39;s")!.lowerBound < all.text.range(of: "Swift one")!.lowerBound, "newest first")
        let alice = get("/tags/Swift?blog=alice")
        #expect(alice.status == .ok && alice.text.contains("Swift one") && !alice.text.contains("Bob&#39;s"))
        #expect(alice.text.contains("href=\"tags/swift\">#swift on all blogs</a>"))
        #expect(get("/tags/nothing").text.contains("No posts with this tag."))
        #expect(get("/tags/swift?blog=nobody").status == .notFound)
        try app.blog.service.moderateSuspend("alice", true)
        #expect(get("/tags/swift?blog=alice").text.contains("Swift one"), "a suspended blog stays readable")
        #expect(get("/tags/swift?blog=a.b").status == .notFound)
        #expect(get("/tags/%3Cb%3E").status == .notFound)
        #expect(get("/tags/%23swift").status == .notFound)
        #expect(get("/tags/swift?before=x").status == .badRequest)
        #expect(get("/tags/swift", method: .post).status == .methodNotAllowed)
    }

    @Test func theRoutesLeaveThePublicFoldersNamesAlone() {
        for path in ["/tags/swift", "/tags/swift.atom", "/tags/caf%C3%A9"] { #expect(pages.handles(path: path), "\(path)") }
        for path in ["/tags/", "/tags/17.html", "/tags/a/b", "/tags.html", "/tags/x.html", "/alice.html", "/tags/.atom"] {
            #expect(!pages.handles(path: path), "\(path)")
        }
        #expect(BlogService.reservedNames.isSuperset(of: ["tags", "search"]))
    }

    @Test func pagesGoOnBelowTheOldestShown() throws {
        var session = Session(peerAddress: "127.0.0.1")
        for index in 0..<(TagPages.pageSize + 2) {
            _ = app.blog.service.handle(message: Array("newpost:alice:Many \(index):#many".utf8), session: &session)
        }
        let first = get("/tags/many?blog=alice")
        #expect(first.text.components(separatedBy: "<article").count - 1 == TagPages.pageSize)
        let older = try #require(first.text.firstMatch(of: /href="(tags\/many\?blog=alice&amp;before=\d+)">Older posts/))
        let second = get("/" + String(older.1).replacingOccurrences(of: "&amp;", with: "&"))
        #expect(second.text.components(separatedBy: "<article").count - 1 == 2)
        #expect(second.text.contains("Many 1<") && second.text.contains("Many 0<") && !second.text.contains("Older posts"))
    }

    @Test func feedsAreValidAtom() throws {
        let across = get("/tags/swift.atom"), alice = get("/tags/swift.atom?blog=alice")
        #expect(across.status == .ok && across.headers[.contentType] == "application/atom+xml; charset=utf-8")
        #expect(across.text.contains("<category term=\"swift\"/>") && across.text.contains("<category term=\"linux\"/>"))
        #expect(across.text.contains("href=\"https://blog.example/tags/swift.atom\""))
        #expect(alice.text.contains("href=\"https://blog.example/tags/swift.atom?blog=alice\""))
        #expect(alice.text.components(separatedBy: "<entry>").count == 2)
        try withTemporaryFolder { (folder: URL) throws in
            var paths: [String] = []
            for (name, feed) in [("across", across), ("alice", alice), ("empty", get("/tags/none.atom"))] {
                let path = folder.appendingPathComponent("\(name).xml")
                try Data(feed.body).write(to: path)
                paths.append(path.path)
            }
            switch FeedTools.find() {
            case .found(let tools):
                let (status, output) = try tools.check(paths)
                #expect(status == 0, "check_feed.py failed:\n\(output)")
            case .missing(let line):
                if FeedTools.required { Issue.record("BLOGD_REQUIRE_FEED_TOOLS=1: \(line)") } else { print(line) }
            }
        }
    }

    @Test func eachAddressHasItsBudget() {
        let clock = app.blog.clock
        let tight = TagPages(storage: app.blog.store, feeds: app.blog.service.pageFeeds,
                             budget: ReadingBudget(perSecond: 1, burst: 2, now: { TestBlog.date(of: clock) }))
        #expect(get("/tags/swift", using: tight).status == .ok)
        #expect(get("/tags/nope.atom", using: tight).status == .ok)
        let refused = get("/tags/swift", using: tight)
        #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "1")
        #expect(get("/tags/swift", from: "198.51.100.7", using: tight).status == .tooManyRequests)
        #expect(get("/tags/swift", from: "203.0.113.9", using: tight).status == .ok, "another address has its own")
        clock.advance(by: 1)
        #expect(get("/tags/swift", using: tight).status == .ok, "refilled")
    }
}
