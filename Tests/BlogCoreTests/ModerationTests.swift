import Foundation
import Testing
import BlogTestSupport
@testable import BlogCore
import BlogSQLite
import BlogWire
@testable import BlogPages

/// What the admin does, through the service (the `blogd` subcommands are
/// tested end to end in BlogdTests).
@Suite("Moderation")
struct ModerationTests {
    @Test func deletingAnyonesPostLeavesATombstone() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "192.0.2.10")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            #expect(fx.send("newpost:alice:Spam:buy now", &session) == .posted)
            let id = try #require(try fx.store.postIDs(ofUserID: fx.store.user(named: "alice")!.id, pages: 1...9).first)
            #expect(try fx.service.moderateDeletePost(id: id) == "alice")
            #expect(fx.pages.exists(file: PageRenderer.goneFile(user: "alice", id: id)))
            #expect(!(fx.page("alice") ?? "").contains("Spam"))
            #expect(fx.page("alice")?.contains("No posts yet.") == true)
            #expect(throws: BlogService.ModerationError.noSuchPost(id)) { try fx.service.moderateDeletePost(id: id) }
        }
    }

    @Test func aSuspendedUserCannotLogInPostEditOrDeleteUntilLifted() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "192.0.2.10")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            #expect(fx.send("newpost:alice:One:x", &session) == .posted)
            let id = try #require(try fx.store.postIDs(ofUserID: fx.store.user(named: "alice")!.id, pages: 1...9).first)
            try fx.service.moderateSuspend("ALICE", true)
            #expect(fx.send("login:alice:pw") == .loginRefused)
            #expect(fx.send("newpost:alice:Two:x", &session) == .postRefused, "even on a logged-in connection")
            #expect(fx.send("editpost:alice:\(id):Two:x", &session) == .editRefused)
            #expect(fx.send("delpost:alice:\(id)", &session) == .deleteRefused)
            #expect(fx.send("posts:alice", &session) == .postRefused)
            #expect(fx.page("alice")?.contains(">One</a>") == true, "the blog stays readable")
            #expect(try fx.store.userSummaries().first?.suspended == true)
            try fx.service.moderateSuspend("alice", false)
            #expect(fx.send("login:alice:pw") == .loggedIn)
            #expect(fx.send("newpost:alice:Two:x", &session) == .posted)
            #expect(throws: BlogService.ModerationError.noSuchUser("nobody")) { try fx.service.moderateSuspend("nobody", true) }
        }
    }

    @Test func deletingAUserRemovesEveryFileOfTheirBlog() throws {
        try withService(pageSize: 2) { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "192.0.2.10")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            #expect(fx.send("register:bob:pw") == .registered)
            for index in 0..<7 { #expect(fx.send("newpost:alice:P\(index):x", &session) == .posted) }
            try fx.service.moderateDeleteUser("alice")
            fx.service.writeIndex()
            #expect(try allFileNames(in: fx.publicFolder).filter { $0.lowercased().hasPrefix("alice") }.isEmpty)
            #expect(fx.pages.exists(file: "bob.html"))
            #expect(!(fx.pages.read(file: "index.html") ?? "").contains("alice"))
            #expect(fx.send("login:alice:pw") == .loginRefused)
            #expect(fx.send("newpost:alice:Back:x", &session) == .postRefused)
            // The name is free again.
            #expect(fx.send("register:alice:new", &session) == .registered)
            #expect(fx.send("newpost:alice:Fresh:x", &session) == .posted)
        }
    }

    @Test func closedRegistrationLeavesAddingUsersToTheAdmin() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let pages = PublicFolder(folder: folder)
            let service = try BlogService(store: store, pages: pages,
                                          settings: .init(scrypt: .testing, registrationOpen: false), logger: quietLogger)
            var session = Session(peerAddress: "192.0.2.10")
            #expect(service.execute(try Request(message: Array("register:alice:pw".utf8)), session: &session) == .nameTaken)
            #expect(try store.allUsers().isEmpty)
            try service.moderateAddUser("alice", password: "pw")
            #expect(pages.exists(file: "alice.html") && pages.exists(file: "alice.atom"))
            #expect(service.execute(try Request(message: Array("login:alice:pw".utf8)), session: &session) == .loggedIn)
            #expect(throws: BlogService.ModerationError.nameTaken("ALICE")) { try service.moderateAddUser("ALICE", password: "x") }
            #expect(throws: BlogService.ModerationError.badName("a b")) { try service.moderateAddUser("a b", password: "x") }
            #expect(throws: BlogService.ModerationError.badPassword) { try service.moderateAddUser("carol", password: "") }
            #expect(throws: BlogService.ModerationError.nameTaken("index")) { try service.moderateAddUser("index", password: "x") }
        }
    }
}
