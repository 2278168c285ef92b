import Foundation
import BlogTestSupport
import Testing
@testable import BlogCore
import BlogSQLite
@testable import BlogPages

/// W3C Micropub 5.3: every blog page names the Micropub endpoint in its
/// head while there is one, and none does without.
@Suite("Micropub discovery")
struct MicropubDiscoveryTests {
    /// A relative link (`micropub`, from the top folder; post pages set
    /// `<base href="../">`): instances reached at different addresses
    /// write the same pages.
    @Test(arguments: [false, true])
    func everyPageNamesTheEndpoint(_ named: Bool) throws {
        let messages = (1...4).map { "newpost:alice:Post \($0):Text" } + ["geopost:alice:50.0875:14.4213:Here:Text"]
        try withPostedBlog(pagesNameMicropub: named, messages: messages) { service, post in
            let pages = ["index.html", "alice.html", "alice.1.html", "alice/\(post.id).html", "alice.map.html"]
            for page in pages {
                let text = try #require(service.pages.read(file: page), "\(page)")
                let head = try #require(text.split(separator: "</head>").first)
                if named {
                    #expect(head.contains("<link rel=\"micropub\" href=\"micropub\">"), "\(page)")
                    #expect(!page.contains("/") || head.contains("<base href=\"../\">"), "\(page) resolves it from the top")
                } else {
                    #expect(!text.contains("micropub"), "\(page)")
                }
            }
            // The start-up check renders the same pages: nothing to rewrite.
            #expect(try service.repairPages().rebuilt.isEmpty)
        }
    }

    @Test func theEndpointIsEscaped() {
        let link = String(decoding: PageRenderer.micropubLink("https://x.example/m?a=1&b=\"2\""), as: UTF8.self)
        #expect(link == "<link rel=\"micropub\" href=\"https://x.example/m?a=1&amp;b=&quot;2&quot;\">\n")
        #expect(PageRenderer.micropubLink(nil).isEmpty)
    }
}
