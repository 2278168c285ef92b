import Foundation
import BlogTestSupport
import Testing
@testable import BlogCore
import BlogModel
import BlogSQLite
@testable import BlogPages

/// A blog with a page of each kind, for tests of what every page carries:
/// a service over a new SQLite file and public folder (a post a page
/// group, so archives exist), `alice` registered, the `messages` sent in
/// her session (each must answer `post:OK`), the index written. `body`
/// gets the service and alice's oldest post.
func withPostedBlog(pagesNameMicropub: Bool, messages: [String],
                    _ body: (BlogService, PostRecord) throws -> Void) throws {
    try withTemporaryFolder { (folder: URL) throws in
        let publicFolder = folder.appendingPathComponent("public")
        try FileManager.default.createDirectory(at: publicFolder, withIntermediateDirectories: false)
        let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
        defer { try? store.close() }
        var settings = BlogService.Settings(openPosting: true, scrypt: .testing, pageSize: 1)
        settings.pagesNameMicropub = pagesNameMicropub
        let service = try BlogService(store: store, pages: PublicFolder(folder: publicFolder), settings: settings,
                                      logger: quietLogger)
        var session = Session(peerAddress: "192.0.2.1")
        #expect(service.handle(message: Array("register:alice:pw".utf8), session: &session).reply == .registered)
        for message in messages {
            #expect(service.handle(message: Array(message.utf8), session: &session).reply == .posted, "\(message)")
        }
        service.writeIndex()
        let alice = try #require(try store.user(named: "alice"))
        let post = try #require(try store.posts(ofUserID: alice.id).last)
        try body(service, post)
    }
}
