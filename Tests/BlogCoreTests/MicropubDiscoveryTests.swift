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
        try withTemporaryFolder { (folder: URL) throws in
            let publicFolder = folder.appendingPathComponent("public")
            try FileManager.default.createDirectory(at: publicFolder, withIntermediateDirectories: false)
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            var settings = BlogService.Settings(openPosting: true, scrypt: .testing, pageSize: 1)
            settings.pagesNameMicropub = named
            let service = try BlogService(store: store, pages: PublicFolder(folder: publicFolder), settings: settings,
                                          logger: quietLogger)
            var session = Session(peerAddress: "192.0.2.1")
            #expect(service.handle(message: Array("register:alice:pw".utf8), session: &session).reply == .registered)
            for number in 1...4 {
                #expect(service.handle(message: Array("newpost:alice:Post \(number):Text".utf8), session: &session).reply == .posted)
            }
            #expect(service.handle(message: Array("geopost:alice:50.0875:14.4213:Here:Text".utf8), session: &session).reply == .posted)
            service.writeIndex()
            let alice = try #require(try store.user(named: "alice"))
            let post = try #require(try store.posts(ofUserID: alice.id).last)
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
