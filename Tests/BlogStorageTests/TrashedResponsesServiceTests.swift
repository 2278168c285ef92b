@testable import BlogCore
import BlogTestSupport
import BlogWire
import Foundation
import Logging
import Testing
import BlogModel
@testable import BlogPages

/// Through the service on each backend: a post with an approved reply (and
/// a page of responses beyond those its own page shows) goes to the trash
/// and comes back; the reply is under it again, its response pages are
/// back, the post beside it keeps its own reply, and every page equals a
/// rebuild.
@Suite("BlogService conformance: a trashed post's responses")
struct TrashedResponsesServiceTests {
    @Test(arguments: Backend.available) func theApprovedReplyIsBackAfterARestore(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let folder = try makeTemporaryFolder()
            defer { removeTemporaryFolder(folder) }
            let quiet = Logger(label: "test.service", factory: { _ in SwiftLogNoOpLogHandler() })
            let service = try BlogService(store: store, pages: PublicFolder(folder: folder),
                                          settings: .init(scrypt: .testing, pageSize: 50), logger: quiet, now: { t0 })
            var session = Session(peerAddress: "192.0.2.1")
            #expect(service.handle(message: Array("register:alice:pw".utf8), session: &session).reply == .registered)
            for title in ["Before", "Answered", "After"] {  // sorted: After, Answered, Before
                #expect(service.handle(message: Array("newpost:alice:\(title):text".utf8), session: &session).reply == .posted)
            }
            let alice = try #require(try store.user(named: "alice"))
            let ids = try store.posts(ofUserID: alice.id).sorted { $0.title < $1.title }.map(\.id)
            let (answered, before) = (ids[1], ids[2])
            @discardableResult
            func reply(to postID: Int64, _ n: Int, _ text: String) throws -> Webmention {
                let queued = try store.queueWebmention(userID: alice.id, postID: postID, source: "https://b.example/\(postID)/\(n)",
                                                       target: "http://localhost/alice/\(postID).html", at: t0)
                try service.storeWebmentionVerification(id: queued.id, content: WebmentionContent(
                    kind: n == 0 ? .reply : .like, authorName: "Bo", authorURL: "https://b.example/", text: text))
                return try #require(try service.approveWebmention(id: queued.id, ofUserID: alice.id))
            }
            // More than its page shows: a response page too. The reply,
            // newest, on both.
            for n in 1...ResponsesRenderer.onPostPage { try reply(to: answered, n, "") }
            try reply(to: answered, 0, "A fine reply")
            try reply(to: before, 0, "The reply beside it")
            let page = PageRenderer.postFile(user: "alice", id: answered)
            let responsesPage = ResponsesRenderer.file(user: "alice", postID: answered, page: 1)
            let neighbour = PageRenderer.postFile(user: "alice", id: before)
            func text(_ file: String) -> String? { service.pages.contents(of: file).map { String(decoding: $0, as: UTF8.self) } }
            #expect(text(page)?.contains("A fine reply") == true)
            #expect(text(responsesPage)?.contains("A fine reply") == true)

            #expect(service.handle(message: Array("delpost:alice:\(answered)".utf8), session: &session).reply == .deleted)
            #expect(text(page) == nil && text(responsesPage) == nil, "\(backend): off the site")
            #expect(try store.webmentions(ofUserID: alice.id, approved: nil, limit: 100).count == 1, "only the neighbour's")

            #expect(service.restorePost(try Username("alice"), id: answered, session: session) == .restored)
            #expect(text(page)?.contains("A fine reply") == true, "\(backend): the reply is under the post again")
            #expect(text(responsesPage)?.contains("A fine reply") == true, "\(backend): its response page is back")
            #expect(text(neighbour)?.contains("The reply beside it") == true, "\(backend): the post beside it keeps its own")
            for file in try service.userPages.render(alice) {
                #expect(service.pages.contents(of: file.file) == file.bytes, "\(backend): \(file.file)")
            }
            #expect(try service.repairPages().rebuilt.isEmpty, "\(backend)")
        }
    }
}
