import BlogTestSupport
import BlogWire
import Foundation
import Testing
import BlogModel
@testable import BlogPages
@testable import BlogCore

/// A blog's settings through the service: stored, then shown on every page
/// of the blog (main, archives, each post's page) and in its feed, escaped;
/// the post pages' head (canonical, description, OpenGraph).
@Suite("Blog settings (service)")
struct BlogSettingsServiceTests {
    static let hostile = "<b>\"Bold\"</b> & 'me'"
    static let escaped = "&lt;b&gt;&quot;Bold&quot;&lt;/b&gt; &amp; &#39;me&#39;"

    @Test func defaultsAreTodaysPages() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "192.0.2.10")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            #expect(fx.send("newpost:alice:Hello:World", &session) == .posted)
            let main = try #require(fx.page("alice"))
            #expect(main.contains("<title>alice – blog</title>"))
            #expect(main.contains("<h1 class=\"blog-title p-name\">alice</h1><p class=\"blog-author\">by "))
            #expect(!main.contains("name=\"description\""), "no description set")
            fx.service.writeIndex()
            let feed = try #require(fx.pages.read(file: "alice.atom"))
            #expect(feed.contains("<title type=\"text\">alice – blog</title>"))
            #expect(!feed.contains("<subtitle"))
        }
    }

    @Test func settingsShowOnEveryPageAndTheFeedEscaped() throws {
        try withService(pageSize: 2) { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "192.0.2.10")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            for index in 1...5 { #expect(fx.send("newpost:alice:Post \(index):Text \(index)", &session) == .posted) }
            let settings = try BlogSettings(title: Self.hostile, description: Self.hostile, authorName: Self.hostile,
                                            authorPhoto: "photos/me.jpg")
            try fx.service.setBlogSettings(settings, of: "ALICE")
            #expect(try fx.service.blogSettings(of: "alice") == settings)

            let main = try #require(fx.page("alice"))
            #expect(main.contains("<title>\(Self.escaped)</title>"))
            #expect(main.contains("<h1 class=\"blog-title p-name\">\(Self.escaped)</h1>"
                                  + "<p class=\"blog-description p-summary\">\(Self.escaped)</p>"))
            #expect(main.contains("<meta name=\"description\" content=\"\(Self.escaped)\">"))
            #expect(main.contains("<img class=\"u-photo author-photo\" src=\"photos/me.jpg\""))
            #expect(main.contains("<a class=\"p-name u-url\" href=\"alice.html\">\(Self.escaped)</a>"))
            #expect(!main.contains("<b>") && !main.contains("'me'"))
            let archive = try #require(fx.pages.read(file: "alice.1.html"))
            #expect(archive.contains("<title>\(Self.escaped) (1)</title>"))
            #expect(archive.contains("<h1 class=\"blog-title p-name\">\(Self.escaped) · archive 1</h1>"))
            let ids = try fx.store.postIDs(ofUserID: try #require(try fx.store.user(named: "alice")).id)
            for id in ids {
                let page = try #require(fx.pages.read(file: "alice/\(id).html"), "post \(id)")
                #expect(page.contains("– \(Self.escaped)</title>"), "post \(id)")
                #expect(page.contains("<meta property=\"og:site_name\" content=\"\(Self.escaped)\">"), "post \(id)")
                #expect(page.contains("<p class=\"post-author\">by <span class=\"p-author h-card\">"), "post \(id)")
                #expect(!page.contains("<b>"), "post \(id)")
            }
            fx.service.writeIndex()
            let feed = try #require(fx.pages.read(file: "alice.atom"))
            let xmlEscaped = "&lt;b&gt;&quot;Bold&quot;&lt;/b&gt; &amp; &apos;me&apos;"
            #expect(feed.contains("<title type=\"text\">\(xmlEscaped)</title>"))
            #expect(feed.contains("<subtitle type=\"text\">\(xmlEscaped)</subtitle>"))
            #expect(feed.contains("<name>\(xmlEscaped)</name>"))
            // With a subtitle and the settings' names, still valid Atom (jing,
            // feedparser, expat).
            let (status, output) = try checkFeeds([fx.publicFolder.appendingPathComponent("alice.atom").path])
            #expect(status == 0, "check_feed.py failed:\n\(output)")

            // What the pages show is what a rebuild renders: nothing stale.
            for user in try fx.store.allUsers() {
                for page in try fx.service.userPages.render(user) {
                    #expect(fx.pages.contents(of: page.file) == page.bytes, "\(page.file)")
                }
            }
            // A new post after the change shows the settings too.
            #expect(fx.send("newpost:alice:Post 6:Text 6", &session) == .posted)
            #expect(try #require(fx.page("alice")).contains("<title>\(Self.escaped)</title>"))

            // Cleared: today's pages again.
            try fx.service.setBlogSettings(.unset, of: "alice")
            #expect(try #require(fx.page("alice")).contains("<title>alice – blog</title>"))
        }
    }

    @Test func theMapPageIsNamedAfterTheBlog() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "192.0.2.10")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            #expect(fx.send("geopost:alice:48.1374:11.5755:Here:Text", &session) == .posted)
            try fx.service.setBlogSettings(try BlogSettings(title: "Notes & walks"), of: "alice")
            let map = try #require(fx.pages.read(file: MapPage.file(user: "alice")))
            #expect(map.contains("<title>Notes &amp; walks – places</title>"))
            #expect(map.contains(">Notes &amp; walks</a>"), "its link back to the blog")
        }
    }

    @Test func unknownUserIsRefused() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(throws: BlogService.ModerationError.noSuchUser("nobody")) {
                try fx.service.setBlogSettings(try BlogSettings(title: "x"), of: "nobody")
            }
            #expect(throws: BlogService.ModerationError.noSuchUser("nobody")) { try fx.service.blogSettings(of: "nobody") }
        }
    }

    /// A post's page says where it lives for good and what it is: canonical
    /// and og:url from the base URL the feeds use, a description from its
    /// text, og:image its first photo, all escaped.
    @Test func postPagesCarryCanonicalAndOpenGraph() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "192.0.2.10")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            try fx.service.setBlogSettings(try BlogSettings(title: "Notes"), of: "alice")
            let photo = testPhoto()
            #expect(fx.service.storePhoto(photo, image: fakeJPEG(3_000), thumbnail: fakeJPEG(400), for: user("alice"),
                                          session: session) == .posted)
            let outcome = fx.service.outcome(of: try Request(message: bytes("newpost:alice:A <door>:Red\n\n\"and\"   old")),
                                             photos: [photo.name], session: &session)
            let id = try #require(outcome.postID)
            let page = try #require(fx.pages.read(file: "alice/\(id).html"))
            let url = "http://localhost/alice/\(id).html"
            #expect(page.contains("<link rel=\"canonical\" href=\"\(url)\">"))
            #expect(page.contains("<meta name=\"description\" content=\"Red &quot;and&quot; old\">"))
            #expect(page.contains("<meta property=\"og:type\" content=\"article\">"))
            #expect(page.contains("<meta property=\"og:title\" content=\"A &lt;door&gt;\">"))
            #expect(page.contains("<meta property=\"og:url\" content=\"\(url)\">"))
            #expect(page.contains("<meta property=\"og:description\" content=\"Red &quot;and&quot; old\">"))
            #expect(page.contains("<meta property=\"og:image\" content=\"http://localhost/\(photo.file)\">"))
            #expect(page.contains("<meta property=\"og:site_name\" content=\"Notes\">"))
            #expect(page.components(separatedBy: "rel=\"canonical\"").count == 2)
        }
    }

    @Test func summariesAreOneBoundedLine() {
        #expect(PostMeta.summary("  Hello\n\n  world\t! ") == "Hello world !")
        #expect(PostMeta.summary("") == "")
        let long = String(repeating: "word ", count: 100)
        let summary = PostMeta.summary(long)
        #expect(summary.hasSuffix("word…"), "cut at a word's end")
        #expect(summary.count <= PostMeta.summaryCharacters + 1)
        let oneWord = String(repeating: "x", count: 500)
        #expect(PostMeta.summary(oneWord) == String(repeating: "x", count: PostMeta.summaryCharacters) + "…")
    }
}
