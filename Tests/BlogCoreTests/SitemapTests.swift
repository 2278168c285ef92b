import BlogTestSupport
import BlogWire
import Foundation
import Testing
import BlogModel
@testable import BlogPages
@testable import BlogCore

/// `sitemap.xml` and `robots.txt`: every blog's main page and every post's
/// page with its last change, split into parts with an index past the
/// protocol's bounds, stale parts removed; robots.txt pointing at it.
@Suite("Sitemap")
struct SitemapTests {
    @Test func listsEveryBlogAndPostWithLastmod() throws {
        try withService { (fx: ServiceFixture) throws in
            var alice = Session(peerAddress: "192.0.2.10"), bob = Session(peerAddress: "192.0.2.11")
            #expect(fx.send("register:alice:pw", &alice) == .registered)
            #expect(fx.send("register:bob:pw", &bob) == .registered)
            #expect(fx.send("newpost:alice:One:x", &alice) == .posted)
            fx.clock.advance(by: 90)
            #expect(fx.send("newpost:alice:Two:y", &alice) == .posted)
            fx.clock.advance(by: 3_600)
            #expect(fx.send("editpost:alice:1:One again:x", &alice) == .edited)
            fx.service.writeIndex()
            let sitemap = try #require(fx.pages.read(file: SitemapFile.fileName))
            let start = TestClock.start
            #expect(sitemap == """
                <?xml version="1.0" encoding="UTF-8"?>
                <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
                <url><loc>http://localhost/alice.html</loc><lastmod>\(PostDate.machine(start + 90))</lastmod></url>
                <url><loc>http://localhost/bob.html</loc><lastmod>\(PostDate.machine(start))</lastmod></url>
                <url><loc>http://localhost/alice/1.html</loc><lastmod>\(PostDate.machine(start + 3_690))</lastmod></url>
                <url><loc>http://localhost/alice/2.html</loc><lastmod>\(PostDate.machine(start + 90))</lastmod></url>
                </urlset>

                """)
            #expect(fx.pages.read(file: SitemapFile.robotsFile) == """
                User-agent: *
                Disallow: /app/
                Allow: /

                Sitemap: http://localhost/sitemap.xml

                """)
            #expect(!fx.pages.exists(file: SitemapFile.partFile(1)))
        }
    }

    /// Past the bound of one file (here 3 URLs, the protocol's 50,000),
    /// `sitemap.xml` is an index of parts; parts no longer needed go.
    @Test func aLargeSiteIsListedInParts() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "192.0.2.10")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            for index in 1...7 { #expect(fx.send("newpost:alice:P\(index):x", &session) == .posted) }
            var files = SitemapFiles(pages: fx.pages, storage: fx.store, siteURL: "https://blog.example/")
            files.maxURLs = 3
            try files.write()
            // 8 URLs (the main page, 7 posts): parts of 3, 3 and 2.
            let index = try #require(fx.pages.read(file: SitemapFile.fileName))
            #expect(index.contains("<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"))
            #expect(index.components(separatedBy: "<sitemap>").count - 1 == 3)
            #expect(index.contains("<loc>https://blog.example/sitemap-3.xml</loc>"))
            let parts = (1...3).map { fx.pages.read(file: SitemapFile.partFile($0)) ?? "" }
            #expect(parts.map { $0.components(separatedBy: "<url>").count - 1 } == [3, 3, 2])
            #expect(parts[0].contains("<loc>https://blog.example/alice.html</loc>"))
            #expect(parts[2].contains("<loc>https://blog.example/alice/7.html</loc>"))

            // 4 URLs left: parts of 3 and 1; the third goes.
            for id in 4...7 { #expect(fx.send("delpost:alice:\(id)", &session) == .deleted) }
            try files.write()
            #expect(fx.pages.read(file: SitemapFile.partFile(1))?.components(separatedBy: "<url>").count == 4)
            #expect(fx.pages.read(file: SitemapFile.partFile(2))?.components(separatedBy: "<url>").count == 2)
            #expect(!fx.pages.exists(file: SitemapFile.partFile(3)), "a part no longer needed goes")
            let shorter = try #require(fx.pages.read(file: SitemapFile.fileName))
            #expect(shorter.contains("sitemap-2.xml") && !shorter.contains("sitemap-3.xml"))

            files.maxURLs = 50_000
            try files.write()
            #expect(try #require(fx.pages.read(file: SitemapFile.fileName)).contains("<urlset"))
            #expect(!fx.pages.exists(file: SitemapFile.partFile(1)), "one file again: no parts")
        }
    }

    /// The byte bound splits too, and every part stays within it.
    @Test func partsStayWithinTheByteBound() {
        var builder = SitemapFile.Builder(siteURL: "https://blog.example/", maxURLs: 1_000, maxBytes: 400)
        var full: [[UInt8]] = []
        for id in 1...10 {
            if let part = builder.add("alice/\(id).html", modified: TestClock.start) { full.append(part) }
        }
        full.append(builder.finish())
        #expect(full.count > 1)
        #expect(full.allSatisfy { $0.count <= 400 })
        let urls = full.map { text($0).components(separatedBy: "<url>").count - 1 }
        #expect(urls.reduce(0, +) == 10)
    }

    @Test func urlsAreEscaped() {
        var builder = SitemapFile.Builder(siteURL: "https://blog.example/?a=1&b=<2>")
        _ = builder.add("alice.html", modified: TestClock.start)
        #expect(text(builder.finish()).contains("<loc>https://blog.example/?a=1&amp;b=&lt;2&gt;/alice.html</loc>"))
    }
}
