@testable import BlogCore
import BlogTestSupport
import BlogWire
import Dispatch
import Foundation
import Logging
import Testing
import BlogModel
@testable import BlogPages

/// Blog settings through the service over each backend: changes racing
/// with posts to the same blog leave every page equal to a rebuild (no
/// page rendered with settings older than the database's), and the
/// sitemap lists every post.
@Suite("BlogService conformance: blog settings")
struct BlogSettingsServiceConformanceTests {
    @Test(arguments: Backend.available) func settingsRacingWithPostsEqualARebuild(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let folder = try makeTemporaryFolder()
            defer { removeTemporaryFolder(folder) }
            let quiet = Logger(label: "test.service", factory: { _ in SwiftLogNoOpLogHandler() })
            let service = try BlogService(store: store, pages: PublicFolder(folder: folder),
                                          settings: .init(scrypt: .testing, pageSize: 3, baseURL: "https://blog.example/"),
                                          logger: quiet)
            var session = Session(peerAddress: "192.0.2.1")
            #expect(service.handle(message: Array("register:ann:pw".utf8), session: &session).reply == .registered)
            let author = session
            let failures = Collector<String>()
            DispatchQueue.concurrentPerform(iterations: 2) { worker in
                var session = author
                for step in 0..<8 {
                    if worker == 0 {
                        let reply = service.handle(message: Array("newpost:ann:Post \(step):text".utf8), session: &session).reply
                        if reply != .posted { failures.append("post \(step): \(reply)") }
                    } else {
                        do {
                            try service.setBlogSettings(try BlogSettings(title: "Title \(step)", description: "Step \(step)"),
                                                        of: "ann")
                        } catch {
                            failures.append("settings \(step): \(error)")
                        }
                    }
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
            service.writeIndex()
            let ann = try #require(try store.user(named: "ann"))
            #expect(try store.blogSettings(ofUserID: ann.id).title == "Title 7")
            let pages = PublicFolder(folder: folder)
            for page in try service.userPages.render(ann) {
                #expect(pages.contents(of: page.file) == page.bytes, "\(page.file) is stale")
            }
            #expect(pages.read(file: "ann.html")?.contains("<title>Title 7</title>") == true)
            let sitemap = try #require(pages.read(file: SitemapFile.fileName))
            for id in try store.postIDs(ofUserID: ann.id, pages: 1...1_000) {
                #expect(sitemap.contains("<loc>https://blog.example/ann/\(id).html</loc>"), "post \(id)")
            }
            #expect(sitemap.components(separatedBy: "<url>").count - 1 == 9, "the blog and its 8 posts")
        }
    }
}
