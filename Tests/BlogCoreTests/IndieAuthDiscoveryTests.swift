import Foundation
import BlogTestSupport
import Testing
@testable import BlogCore
import BlogSQLite
@testable import BlogPages

/// IndieAuth 2022, section 4.1: every page names the metadata (and the
/// older endpoint links) while the web client is on, none without; the
/// same bytes on every instance, so the start-up check rewrites nothing.
@Suite("IndieAuth discovery")
struct IndieAuthDiscoveryTests {
    @Test(arguments: [false, true])
    func everyPageNamesTheServer(_ named: Bool) throws {
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
            for number in 1...3 {
                #expect(service.handle(message: Array("newpost:alice:Post \(number):Text".utf8), session: &session).reply == .posted)
            }
            service.writeIndex()
            let alice = try #require(try store.user(named: "alice"))
            let post = try #require(try store.posts(ofUserID: alice.id).last)
            for page in ["index.html", "alice.html", "alice.1.html", "alice/\(post.id).html"] {
                let text = try #require(service.pages.read(file: page), "\(page)")
                let head = try #require(text.split(separator: "</head>").first)
                let links = ["<link rel=\"indieauth-metadata\" href=\"/.well-known/oauth-authorization-server\">",
                             "<link rel=\"authorization_endpoint\" href=\"/app/auth\">",
                             "<link rel=\"token_endpoint\" href=\"/indieauth/token\">"]
                for link in links {
                    #expect(head.contains(link) == named, "\(page): \(link)")
                }
            }
            #expect(try service.repairPages().rebuilt.isEmpty)
        }
    }
}
