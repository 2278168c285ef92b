import Foundation
import Logging
import BlogTestSupport
import Testing
@testable import BlogCore
import BlogWire
import BlogSQLite
@testable import BlogAuth
import BlogModel
@testable import BlogPages

/// A service on a temporary SQLite file and public folder.
struct ServiceFixture {
    let folder: URL
    let publicFolder: URL
    let store: SQLiteStore
    let service: BlogService
    let clock: TestClock

    var pages: PublicFolder { service.pages }

    func send(_ message: String, _ session: inout Session) -> Reply {
        service.handle(message: bytes(message), session: &session).reply
    }

    /// Sends on a connection of its own, as the original client does.
    func send(_ message: String, from address: String = "192.0.2.10") -> Reply {
        var session = Session(peerAddress: address)
        return send(message, &session)
    }

    func page(_ user: String) -> String? { pages.read(user: user) }

    /// The post ids on a page, top to bottom.
    func articleIDs(_ user: String) -> [Int64] {
        articleIDs(inPage: page(user))
    }

    /// The post ids on archive page `number`, top to bottom.
    func archiveIDs(_ user: String, _ number: Int) -> [Int64] {
        articleIDs(inPage: pages.read(file: "\(user).\(number).html"))
    }

    func articleIDs(inPage page: String?) -> [Int64] {
        guard let page else { return [] }
        return page.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /<article[^>]* id="post-(\d+)"/).flatMap { Int64($0.1) }
        }
    }

    /// The line right after the heading line.
    func lineAfterHeading(_ user: String) -> Substring? {
        guard let lines = page(user)?.split(separator: "\n", omittingEmptySubsequences: false),
              let heading = lines.firstIndex(where: { $0.contains("</h1>") }),
              heading + 1 < lines.count else { return nil }
        return lines[heading + 1]
    }
}

let quietLogger = Logger(label: "blogd.tests") { _ in SwiftLogNoOpLogHandler() }

/// A service with `.testing` scrypt, a clock that moves only by hand, and
/// by default pages large enough that no post goes to an archive.
func withService(openPosting: Bool = false, loginLease: Double = 3600, pageSize: Int = 1000,
                 loginThrottle: LoginThrottle.Policy = .init(),
                 publicFolderName: String = "public", createPublicFolder: Bool = true,
                 storage: (SQLiteStore) -> any BlogStorage = { $0 },
                 _ body: (ServiceFixture) throws -> Void) throws {
    try withTemporaryFolder { (folder: URL) throws in
        let publicFolder = folder.appendingPathComponent(publicFolderName, isDirectory: true)
        if createPublicFolder {
            try FileManager.default.createDirectory(at: publicFolder, withIntermediateDirectories: true)
        }
        let store = try SQLiteStore(path: folder.appendingPathComponent("data/blog.sqlite").path)
        defer { try? store.close() }
        let clock = TestClock()
        let service = try BlogService(
            store: storage(store), pages: PublicFolder(folder: publicFolder),
            settings: .init(openPosting: openPosting, scrypt: .testing, loginLease: loginLease,
                            pageSize: pageSize, loginThrottle: loginThrottle),
            logger: quietLogger, now: clock.closure)
        try body(ServiceFixture(folder: folder, publicFolder: publicFolder, store: store, service: service, clock: clock))
    }
}

@Suite("BlogService")
struct BlogServiceTests {
    // MARK: register

    @Test func registerCreatesUserAndPage() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:User:mojeHeslo") == .registered)
            let page = try #require(fx.page("User"))
            #expect(page == PageRenderer.page(user: "User", posts: []))
            #expect(page.contains(">User</h1>"))
            #expect(try pageFileNames(in: fx.publicFolder) == ["User.html"])
            let record = try #require(try fx.store.user(named: "user"))
            #expect(record.name == "User")
            #expect(record.createdAt == fx.clock.now)
            #expect(record.passwordHash.hasPrefix("$scrypt$ln=4,r=8,p=1$"))
            #expect(!record.passwordHash.contains("mojeHeslo"))
        }
    }

    /// `index.html` is the list of blogs, so no user may be called index.
    @Test func indexIsReserved() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:index:pw") == .nameTaken)
            #expect(fx.send("register:INDEX:pw") == .nameTaken)
            #expect(try fx.store.user(named: "index") == nil)
            #expect(fx.send("register:indexer:pw") == .registered)
        }
    }

    @Test func duplicateInAnyCaseIsTaken() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:Alice:one") == .registered)
            #expect(fx.send("register:Alice:two") == .nameTaken)
            #expect(fx.send("register:alice:two") == .nameTaken)
            #expect(fx.send("register:ALICE:one") == .nameTaken)
            #expect(try pageFileNames(in: fx.publicFolder) == ["Alice.html"])
            // The first password still holds.
            #expect(fx.send("login:alice:one") == .loggedIn)
            #expect(fx.send("login:alice:two") == .loginRefused)
        }
    }

    @Test func handleReportsCommandAndUser() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "192.0.2.1")
            let outcome = fx.service.handle(message: bytes("register:Alice:secret"), session: &session)
            #expect(outcome == Outcome(reply: .registered, command: "register", user: "Alice"))
            #expect(session.authenticatedUsers == ["alice"])
            let login = fx.service.handle(message: bytes("login:ALICE:secret"), session: &session)
            #expect(login == Outcome(reply: .loggedIn, command: "login", user: "ALICE"))
            let post = fx.service.handle(message: bytes("newpost:alice:t:c"), session: &session)
            // The new post's id comes back too (Micropub's Location needs it).
            let stored = try fx.store.posts(ofUserID: #require(try fx.store.user(named: "alice")).id)
            #expect(post == Outcome(reply: .posted, command: "newpost", user: "alice", postID: stored.first?.id))
            #expect(post.postID != nil)
        }
    }

    // MARK: login

    @Test func loginRightWrongUnknown() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:User:mojeHeslo") == .registered)
            #expect(fx.send("login:User:mojeHeslo") == .loggedIn)
            #expect(fx.send("login:user:mojeHeslo") == .loggedIn, "names compare regardless of case")
            #expect(fx.send("login:User:mojeheslo") == .loginRefused)
            #expect(fx.send("login:User:mojeHeslo ") == .loginRefused)
            #expect(fx.send("login:Nobody:mojeHeslo") == .loginRefused)
        }
    }

    @Test func passwordWithColonsAndUnicode() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:pat:a:b:č😀") == .registered)
            #expect(fx.send("login:pat:a:b:č😀") == .loggedIn)
            #expect(fx.send("login:pat:a:b") == .loginRefused)
        }
    }

    @Test func failedLoginDoesNotAuthenticate() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:pw", from: "10.0.0.1") == .registered)
            var session = Session(peerAddress: "10.0.0.2")
            #expect(fx.send("login:alice:wrong", &session) == .loginRefused)
            #expect(session.authenticatedUsers.isEmpty)
            #expect(fx.send("newpost:alice:t:c", &session) == .postRefused)
            #expect(fx.send("newpost:alice:t:c", from: "10.0.0.2") == .postRefused)
        }
    }

    @Test func repeatedFailuresLockTheLoginFromThatAddress() throws {
        try withService(loginThrottle: .init(allowedFailures: 5, window: 300, lockout: 300)) { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:right", from: "10.0.0.9") == .registered)
            for _ in 0 ..< 5 { #expect(fx.send("login:alice:guess", from: "10.0.0.1") == .loginRefused) }
            // Locked out: even the right password is refused from there...
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("login:ALICE:right", &session) == .loginRefused)
            #expect(session.authenticatedUsers.isEmpty)
            #expect(fx.send("newpost:alice:t:c", from: "10.0.0.1") == .postRefused)
            // ...but not from elsewhere.
            #expect(fx.send("login:alice:right", from: "10.0.0.2") == .loggedIn)
            // And not once the lockout is over.
            fx.clock.advance(by: 300)
            #expect(fx.send("login:alice:right", from: "10.0.0.1") == .loggedIn)
        }
    }

    @Test func successfulLoginResetsTheFailureCount() throws {
        try withService(loginThrottle: .init(allowedFailures: 3, window: 300, lockout: 300)) { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:right") == .registered)
            for _ in 0 ..< 2 { #expect(fx.send("login:alice:guess") == .loginRefused) }
            #expect(fx.send("login:alice:right") == .loggedIn)
            for _ in 0 ..< 2 { #expect(fx.send("login:alice:guess") == .loginRefused) }
            #expect(fx.send("login:alice:right") == .loggedIn)
        }
    }

    @Test func unknownNamesAreThrottledToo() throws {
        try withService(loginThrottle: .init(allowedFailures: 2, window: 300, lockout: 300)) { (fx: ServiceFixture) throws in
            #expect(fx.send("login:ghost:pw") == .loginRefused)
            #expect(fx.send("login:ghost:pw") == .loginRefused)
            #expect(fx.service.throttle.isLocked(user("ghost"), from: "192.0.2.10"))
            // Registering the name later is not blocked by it.
            #expect(fx.send("register:ghost:pw", from: "10.0.0.5") == .registered)
        }
    }

    @Test func throttleOff() throws {
        try withService(loginThrottle: .off) { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:right") == .registered)
            for _ in 0 ..< 20 { #expect(fx.send("login:alice:guess") == .loginRefused) }
            #expect(fx.send("login:alice:right") == .loggedIn)
        }
    }

    // MARK: newpost

    @Test func postAfterLoginOnSameSession() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:User:mojeHeslo", from: "10.0.0.1") == .registered)
            var session = Session(peerAddress: "10.0.0.2")
            #expect(fx.send("login:User:mojeHeslo", &session) == .loggedIn)
            #expect(fx.send("newpost:User:Titulek clanku:Zde je cely dlouhy text prispevku.", &session) == .posted)
            let line = try #require(fx.lineAfterHeading("User"))
            #expect(line.contains("\">Titulek clanku</a></h2>"))
            #expect(line.contains("Zde je cely dlouhy text prispevku."))
            #expect(line.contains("<time class=\"dt-published\" datetime=\"2027-01-15T08:00:00Z\">"))
            let posts = try fx.store.posts(ofUserID: try #require(try fx.store.user(named: "User")?.id))
            #expect(posts.map(\.title) == ["Titulek clanku"])
            #expect(fx.articleIDs("User") == posts.map { $0.id })
        }
    }

    @Test func registeringAuthenticatesTheSession() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            #expect(fx.send("newpost:alice:t:c", &session) == .posted)
        }
    }

    @Test func postsAreNewestFirst() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            for index in 1 ... 5 {
                fx.clock.advance(by: 60)
                #expect(fx.send("newpost:alice:Post \(index):text \(index)", &session) == .posted)
                #expect(fx.lineAfterHeading("alice")?.contains("\">Post \(index)</a></h2>") == true)
            }
            let ids = fx.articleIDs("alice")
            #expect(ids.count == 5)
            #expect(ids == ids.sorted(by: >))
            let page = try #require(fx.page("alice"))
            let order = (1 ... 5).reversed().map { page.range(of: "\">Post \($0)</a></h2>")!.lowerBound }
            #expect(order == order.sorted())
            // Incremental updates produce exactly what a full render would.
            let owner = try #require(try fx.store.user(named: "alice"))
            #expect(page == PageRenderer.page(user: "alice", posts: try fx.store.posts(ofUserID: owner.id)))
        }
    }

    @Test func postGoesToThePageInRegisteredCase() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:Alice:pw", &session) == .registered)
            #expect(fx.send("newpost:ALICE:t:c", &session) == .posted)
            #expect(try pageFileNames(in: fx.publicFolder) == ["Alice.html"])
            #expect(fx.articleIDs("Alice").count == 1)
        }
    }

    @Test func postTextIsEscapedWithLineBreaks() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            #expect(fx.send("newpost:alice:<script>alert(1)</script>:<b>bold</b> & co\r\nline 2\nline 3:x", &session) == .posted)
            let page = try #require(fx.page("alice"))
            #expect(!page.contains("<script>"))
            #expect(!page.contains("<b>"))
            let line = try #require(fx.lineAfterHeading("alice"))
            #expect(line.contains("\">&lt;script&gt;alert(1)&lt;/script&gt;</a></h2>"))
            #expect(line.contains("&lt;b&gt;bold&lt;/b&gt; &amp; co<br>line 2<br>line 3:x"))
        }
    }

    @Test func leaseLetsAFreshConnectionFromTheSameAddressPost() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:pw", from: "10.0.0.9") == .registered)
            #expect(fx.send("login:alice:pw", from: "10.0.0.1") == .loggedIn)
            #expect(fx.send("newpost:alice:t:c", from: "10.0.0.1") == .posted)
            #expect(fx.send("newpost:ALICE:t2:c", from: "10.0.0.1") == .posted)
            // Registration grants the lease too.
            #expect(fx.send("newpost:alice:t3:c", from: "10.0.0.9") == .posted)
        }
    }

    @Test func otherAddressIsRefused() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:pw", from: "10.0.0.1") == .registered)
            #expect(fx.send("login:alice:pw", from: "10.0.0.1") == .loggedIn)
            let before = fx.page("alice")
            #expect(fx.send("newpost:alice:t:c", from: "10.0.0.2") == .postRefused)
            #expect(fx.page("alice") == before)
            let owner = try #require(try fx.store.user(named: "alice"))
            #expect(try fx.store.posts(ofUserID: owner.id).isEmpty)
        }
    }

    @Test func loginForOneUserDoesNotAuthorizeAnother() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:pw", from: "10.0.0.1") == .registered)
            #expect(fx.send("register:bob:pw", from: "10.0.0.2") == .registered)
            var session = Session(peerAddress: "10.0.0.3")
            #expect(fx.send("login:alice:pw", &session) == .loggedIn)
            #expect(fx.send("newpost:bob:t:c", &session) == .postRefused)
            #expect(fx.send("newpost:alice:t:c", &session) == .posted)
        }
    }

    @Test func unknownUserIsRefused() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("newpost:nobody:t:c") == .postRefused)
            #expect(try fileNames(in: fx.publicFolder).isEmpty)
        }
        try withService(openPosting: true) { (fx: ServiceFixture) throws in
            #expect(fx.send("newpost:nobody:t:c") == .postRefused)
            #expect(try fileNames(in: fx.publicFolder).isEmpty)
        }
    }

    @Test func openPostingLetsAnyonePost() throws {
        try withService(openPosting: true) { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:pw", from: "10.0.0.1") == .registered)
            #expect(fx.send("newpost:alice:t:c", from: "203.0.113.7") == .posted)
            #expect(fx.articleIDs("alice").count == 1)
        }
    }

    @Test func leaseExpires() throws {
        try withService(loginLease: 3600) { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:pw", from: "10.0.0.9") == .registered)
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("login:alice:pw", &session) == .loggedIn)
            fx.clock.advance(by: 3599)
            #expect(fx.send("newpost:alice:early:c", from: "10.0.0.1") == .posted)
            fx.clock.advance(by: 1)
            #expect(fx.send("newpost:alice:late:c", from: "10.0.0.1") == .postRefused)
            // The connection that logged in may still post.
            #expect(fx.send("newpost:alice:same connection:c", &session) == .posted)
            // Logging in again renews the lease.
            #expect(fx.send("login:alice:pw", from: "10.0.0.1") == .loggedIn)
            #expect(fx.send("newpost:alice:renewed:c", from: "10.0.0.1") == .posted)
        }
    }

    @Test func zeroLeaseOnlyTheSameConnectionPosts() throws {
        try withService(loginLease: 0) { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            #expect(fx.send("login:alice:pw", from: "10.0.0.1") == .loggedIn)
            #expect(fx.send("newpost:alice:t:c", from: "10.0.0.1") == .postRefused)
            #expect(fx.send("newpost:alice:t:c", &session) == .posted)
        }
    }

    // MARK: Bad messages

    @Test(arguments: [
        ("register:alice", Reply.badArguments), ("register:../evil:pw", .badArguments),
        ("register::pw", .badArguments), ("register:alice:", .badArguments),
        ("newpost:alice:t", .badArguments), ("newpost:alice::c", .badArguments),
        ("newpost:alice:t:c\u{0}", .badArguments), ("REGISTER:alice:pw", .unknownCommand),
        ("Login:alice:pw", .unknownCommand), ("", .unknownCommand), ("delete:alice", .unknownCommand),
    ])
    func badMessagesChangeNothing(message: String, reply: Reply) throws {
        try withService(openPosting: true) { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            let outcome = fx.service.handle(message: bytes(message), session: &session)
            #expect(outcome == Outcome(reply: reply))
            #expect(outcome.command == nil && outcome.user == nil)
            #expect(session.authenticatedUsers.isEmpty)
            #expect(try fx.store.userSummaries().isEmpty)
            #expect(try fileNames(in: fx.publicFolder).isEmpty)
        }
    }

    @Test func invalidUTF8ChangesNothing() throws {
        try withService(openPosting: true) { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            let before = fx.page("alice")
            for message in [bytes("register:bob:") + [0xFF], bytes("newpost:alice:t:") + [0xC3, 0x28]] {
                let outcome = fx.service.handle(message: message, session: &session)
                #expect(outcome == Outcome(reply: .badArguments))
            }
            #expect(try fx.store.userSummaries().map(\.name) == ["alice"])
            #expect(try fx.store.userSummaries().map(\.postCount) == [0])
            #expect(fx.page("alice") == before)
        }
    }

    // MARK: Pages out of step with the database

    @Test func deletedPageIsRebuiltOnNextPost() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            #expect(fx.send("newpost:alice:one:1", &session) == .posted)
            try FileManager.default.removeItem(at: fx.pages.url(for: "alice"))
            #expect(fx.send("newpost:alice:two:2", &session) == .posted)
            let page = try #require(fx.page("alice"))
            #expect(page.contains("\">one</a></h2>"))
            #expect(page.contains("\">two</a></h2>"))
            #expect(fx.articleIDs("alice").count == 2)
            #expect(fx.articleIDs("alice") == fx.articleIDs("alice").sorted(by: >))
        }
    }

    @Test func pageWithoutHeadingIsRebuilt() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            #expect(fx.send("newpost:alice:one:1", &session) == .posted)
            try fx.pages.write("garbage without a heading\n", user: "alice")
            #expect(fx.send("newpost:alice:two:2", &session) == .posted)
            let owner = try #require(try fx.store.user(named: "alice"))
            #expect(fx.page("alice") == PageRenderer.page(user: "alice", posts: try fx.store.posts(ofUserID: owner.id)))
        }
    }

    @Test func rebuildPageMatchesTheDatabase() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            for index in 1 ... 3 { #expect(fx.send("newpost:alice:t\(index):c", &session) == .posted) }
            let owner = try #require(try fx.store.user(named: "alice"))
            let incremental = fx.page("alice")
            try FileManager.default.removeItem(at: fx.pages.url(for: "alice"))
            try fx.service.rebuildPage(of: owner)
            #expect(fx.page("alice") == incremental)
        }
    }

    @Test func registerWithoutPublicFolderIsDatabaseError() throws {
        try withService(createPublicFolder: false) { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:pw") == .databaseError)
            #expect(!FileManager.default.fileExists(atPath: fx.publicFolder.path))
        }
    }

    @Test func registerWhenPublicFolderIsAFileIsDatabaseError() throws {
        try withService(createPublicFolder: false) { (fx: ServiceFixture) throws in
            try Data("not a folder".utf8).write(to: fx.publicFolder)
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .databaseError)
            #expect(session.authenticatedUsers.isEmpty, "a failed registration authenticates no one")
        }
    }

    /// docs/protocol.md: `reg:OK` means "user created, page created" and `err:DB`
    /// a failure. When the page cannot be written the service answers
    /// `err:DB` but keeps the committed user row, so the client is told the
    /// registration failed while the name is now taken for good: a retry
    /// answers `reg:NA`.
    @Test func failedRegistrationCanBeRetried() throws {
        try withService(createPublicFolder: false) { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:pw") == .databaseError)
            try FileManager.default.createDirectory(at: fx.publicFolder, withIntermediateDirectories: true)
            #expect(fx.send("register:alice:pw") == .registered)
            #expect(fx.page("alice") != nil)
        }
    }

    @Test func postWithoutPublicFolderFailsAndRecovers() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            fx.service.writeIndex()  // no background write may race the removal
            try FileManager.default.removeItem(at: fx.publicFolder)
            #expect(fx.send("newpost:alice:one:1", &session) == .postFailed)
            try FileManager.default.createDirectory(at: fx.publicFolder, withIntermediateDirectories: true)
            #expect(fx.send("newpost:alice:two:2", &session) == .posted)
            // The page is rebuilt from the database, the source of truth.
            let owner = try #require(try fx.store.user(named: "alice"))
            let posts = try fx.store.posts(ofUserID: owner.id)
            #expect(fx.page("alice") == PageRenderer.page(user: "alice", posts: posts))
        }
    }

    @Test func closedDatabaseGivesErrors() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            try fx.store.close()
            #expect(fx.send("register:bob:pw") == .databaseError)
            #expect(fx.send("login:alice:pw") == .databaseError)
            #expect(fx.send("newpost:alice:t:c", &session) == .postFailed)
        }
    }

    // MARK: Concurrency

    @Test func parallelRegistersOfOneName() throws {
        try withService { (fx: ServiceFixture) throws in
            let replies = Collector<Reply>()
            DispatchQueue.concurrentPerform(iterations: 50) { index in
                let names = ["Same", "same", "SAME", "sAmE"]
                var session = Session(peerAddress: "10.0.\(index).1")
                replies.append(fx.send("register:\(names[index % names.count]):pw\(index)", &session))
            }
            #expect(replies.all.count == 50)
            #expect(replies.all.filter { $0 == .registered }.count == 1)
            #expect(replies.all.filter { $0 == .nameTaken }.count == 49)
            #expect(try fx.store.userSummaries().count == 1)
            #expect(try pageFileNames(in: fx.publicFolder).count == 1)
        }
    }

    @Test func parallelPostsAllLandOnceInOrder() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:pw", from: "10.0.0.1") == .registered)
            let replies = Collector<Reply>()
            DispatchQueue.concurrentPerform(iterations: 100) { index in
                replies.append(fx.send("newpost:alice:Post \(index):body \(index)", from: "10.0.0.1"))
            }
            #expect(replies.all.count == 100)
            #expect(replies.all.allSatisfy { $0 == .posted })
            let owner = try #require(try fx.store.user(named: "alice"))
            let posts = try fx.store.posts(ofUserID: owner.id)
            #expect(posts.count == 100)
            #expect(fx.articleIDs("alice") == posts.map { $0.id })
            let page = try #require(fx.page("alice"))
            for index in 0 ..< 100 {
                #expect(page.components(separatedBy: "\">Post \(index)</a></h2>").count == 2, "post \(index)")
            }
            #expect(page == PageRenderer.page(user: "alice", posts: posts))
        }
    }

    @Test func parallelPostsWithArchivesLandOnceInOrder() throws {
        try withService(pageSize: 7) { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:pw", from: "10.0.0.1") == .registered)
            let replies = Collector<Reply>()
            DispatchQueue.concurrentPerform(iterations: 100) { index in
                replies.append(fx.send("newpost:alice:Post \(index):body \(index)", from: "10.0.0.1"))
            }
            #expect(replies.all.filter { $0 == .posted }.count == 100)
            let owner = try #require(try fx.store.user(named: "alice"))
            let ids = try fx.store.posts(ofUserID: owner.id).map { $0.id }
            // 100 posts, 7 a page: 13 archives of 7 and 9 on the main page.
            var shown = fx.articleIDs("alice")
            #expect(shown.count == 9)
            for number in stride(from: 13, through: 1, by: -1) {
                let archive = fx.archiveIDs("alice", number)
                #expect(archive.count == 7, "archive \(number)")
                shown += archive
            }
            #expect(shown == ids, "every post once, newest first across main page and archives")
            #expect(!fx.pages.exists(file: "alice.14.html"))
            fx.service.writeIndex()
            #expect(try fx.service.userPages.areCurrent(owner))
        }
    }

    @Test func parallelPostsToSeveralUsers() throws {
        try withService(openPosting: true) { (fx: ServiceFixture) throws in
            let names = ["ann", "ben", "cid", "dee"]
            for name in names { #expect(fx.send("register:\(name):pw") == .registered) }
            let replies = Collector<Reply>()
            DispatchQueue.concurrentPerform(iterations: 80) { index in
                replies.append(fx.send("newpost:\(names[index % 4]):t\(index):c"))
            }
            #expect(replies.all.filter { $0 == .posted }.count == 80)
            for name in names {
                let owner = try #require(try fx.store.user(named: name))
                let posts = try fx.store.posts(ofUserID: owner.id)
                #expect(posts.count == 20)
                #expect(fx.page(name) == PageRenderer.page(user: name, posts: posts))
            }
        }
    }
}
