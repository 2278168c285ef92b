import BlogCore
import BlogServer
import Foundation
import Testing
import BlogWire

/// Every row of both reply tables of docs/protocol.md, over a real socket, one
/// message per connection as the original client sends them.
@Suite("Reply tables over the wire")
struct ReplyTableTests {
    // MARK: register

    @Test func registerOKCreatesUserAndPage() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let (reply, end) = try f.exchange("register:User:mojeHeslo[E];")
        #expect(reply == "reg:OK[E];")
        #expect(end == .eof)
        #expect(try f.store.user(named: "User")?.name == "User")
        let page = try #require(f.page(of: "User"))
        #expect(page.contains("</h1>"))
        #expect(page.contains("href=\"style.css\""))
    }

    @Test func registerNAWhenNameExistsInAnyCase() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask("register:Alice:one[E];") == "reg:OK[E];")
        #expect(try f.ask("register:Alice:two[E];") == "reg:NA[E];")
        #expect(try f.ask("register:alice:three[E];") == "reg:NA[E];")
        #expect(try f.ask("register:ALICE:four[E];") == "reg:NA[E];")
        // The first registration stands: its password, its case.
        #expect(try f.ask("login:Alice:one[E];") == "log:OK[E];")
        #expect(try f.ask("login:Alice:two[E];") == "log:NA[E];")
        #expect(FileManager.default.fileExists(atPath: f.pages.url(for: "Alice").path))
        #expect(!FileManager.default.fileExists(atPath: f.pages.url(for: "alice").path))
    }

    @Test func registerDBErrorWhenThePageCannotBeWritten() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.breakPublicFolder()
        #expect(try f.ask("register:Bob:pw[E];") == "err:DB[E];")
    }

    /// A registration answered err:DB must not have happened: when the
    /// client tries again (the folder repaired), the name is still free.
    ///
    /// BlogService.register commits the user (store.createUser) and only
    /// then writes the page; when the page write fails it answers err:DB
    /// but leaves the user in the database, so the retry gets reg:NA for a
    /// registration the client was told had failed.
    @Test func registerAnsweredDBErrorLeavesNoUserBehind() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.breakPublicFolder()
        #expect(try f.ask("register:Retry:pw[E];") == "err:DB[E];")
        try f.repairPublicFolder()
        #expect(try f.ask("register:Retry:pw[E];") == "reg:OK[E];", "the failed registration took the name")
        #expect(f.page(of: "Retry") != nil)
    }

    @Test func registerDBErrorWhenTheDatabaseIsClosed() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.store.close()
        #expect(try f.ask("register:Bob:pw[E];") == "err:DB[E];")
    }

    // MARK: login

    @Test func loginOK() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask("register:User:mojeHeslo[E];") == "reg:OK[E];")
        #expect(try f.ask("login:User:mojeHeslo[E];") == "log:OK[E];")
        // Names compare regardless of case.
        #expect(try f.ask("login:user:mojeHeslo[E];") == "log:OK[E];")
    }

    @Test func loginNAForWrongPassword() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask("register:User:mojeHeslo[E];") == "reg:OK[E];")
        #expect(try f.ask("login:User:mojeheslo[E];") == "log:NA[E];")
        #expect(try f.ask("login:User:mojeHeslo [E];") == "log:NA[E];")
    }

    @Test func loginNAForUnknownUser() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask("login:Nobody:mojeHeslo[E];") == "log:NA[E];")
    }

    @Test func loginDBErrorWhenTheDatabaseIsClosed() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask("register:User:pw[E];") == "reg:OK[E];")
        try f.store.close()
        #expect(try f.ask("login:User:pw[E];") == "err:DB[E];")
    }

    // MARK: newpost

    @Test func newpostOKAfterLogin() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("User")
        #expect(try f.ask("newpost:User:Titulek clanku:Zde je cely dlouhy text prispevku.[E];") == "post:OK[E];")
        #expect(try f.postCount(of: "User") == 1)
        let page = try #require(f.page(of: "User"))
        #expect(page.contains("Titulek clanku"))
        #expect(page.contains("Zde je cely dlouhy text prispevku."))
    }

    @Test func newpostERRWhenThePageCannotBeWritten() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("User")
        try f.breakPublicFolder()
        #expect(try f.ask("newpost:User:Title:Text[E];") == "post:ERR[E];")
    }

    /// A post answered post:ERR must not have happened: when the client
    /// posts it again (the folder repaired), it appears once.
    ///
    /// BlogService.newPost commits the post (store.addPost) and only then
    /// updates the page; when that fails it answers post:ERR but keeps the
    /// post, so the retry stores it a second time and the rebuilt page
    /// shows it twice.
    @Test func newpostAnsweredERRLeavesNoPostBehind() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("Twice")
        try f.breakPublicFolder()
        #expect(try f.ask("newpost:Twice:Only once:text[E];") == "post:ERR[E];")
        try f.repairPublicFolder()
        #expect(try f.ask("newpost:Twice:Only once:text[E];") == "post:OK[E];")
        #expect(try f.postCount(of: "Twice") == 1, "the failed post was kept")
        let page = try #require(f.page(of: "Twice"))
        #expect(page.components(separatedBy: "Only once").count - 1 == 1, "the post is on the page once")
    }

    @Test func newpostERRWhenTheDatabaseIsClosed() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("User")
        try f.store.close()
        #expect(try f.ask("newpost:User:Title:Text[E];") == "post:ERR[E];")
    }

    @Test func newpostNAForUnknownUser() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask("newpost:Ghost:Title:Text[E];") == "post:NA[E];")
        #expect(f.page(of: "Ghost") == nil)
    }

    @Test func newpostNAForUserWhoNeverLoggedIn() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        // Registered behind the server's back: no lease from any address.
        _ = try f.store.createUser(name: "Quiet", passwordHash: "not-a-hash", at: Date())
        #expect(try f.ask("newpost:Quiet:Title:Text[E];") == "post:NA[E];")
        #expect(try f.postCount(of: "Quiet") == 0)
    }

    @Test func newpostNAAfterAFailedLogin() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        _ = try f.store.createUser(name: "Quiet", passwordHash: "not-a-hash", at: Date())
        #expect(try f.ask("login:Quiet:guess[E];") == "log:NA[E];")
        #expect(try f.ask("newpost:Quiet:Title:Text[E];") == "post:NA[E];")
        #expect(try f.postCount(of: "Quiet") == 0)
    }

    // MARK: err:CMD, err:ARGS

    @Test(arguments: [
        "hello:a:b[E];",
        "REGISTER:User:pw[E];",
        "Login:User:pw[E];",
        "newPost:User:t:c[E];",
        "registerUser:pw[E];",
        "[E];",
    ])
    func unknownCommand(_ message: String) throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask(message) == "err:CMD[E];")
        #expect(try f.store.userSummaries().isEmpty)
    }

    @Test(arguments: [
        "register:onlyname[E];",
        "register[E];",
        "login:onlyname[E];",
        "newpost:User:title[E];",
        "newpost:User[E];",
        "register:../x:pw[E];",
        "register:x/y:pw[E];",
        "register:.hidden:pw[E];",
        "register:_lead:pw[E];",
        "register::pw[E];",
        "register:User:[E];",
        "register:\(String(repeating: "a", count: 33)):pw[E];",
        "register:User:\(String(repeating: "p", count: 257))[E];",
        "register:Žluť:pw[E];",
        "newpost:User::text[E];",
        "newpost:User:   :text[E];",
        "newpost:User:\(String(repeating: "t", count: 201)):text[E];",
        "newpost:User:Two\nlines:text[E];",
        "newpost:User:Title:nul \u{0} byte[E];",
        "newpost:User:Title:escape \u{1B}[31m red[E];",
        "register:Us\u{0}er:pw[E];",
    ])
    func badArguments(_ message: String) throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask(message) == "err:ARGS[E];")
        #expect(try f.store.userSummaries().isEmpty)
    }

    static let invalidUTF8Messages: [[UInt8]] = [
        bytes("register:User:", [0xFF, 0xFE], "[E];"),
        bytes("register:Us", [0xFF, 0xFE], "er:pw[E];"),
        bytes("login:User:", [0xC3], "[E];"),
    ]

    static func bytes(_ head: String, _ middle: [UInt8], _ tail: String) -> [UInt8] {
        Array(head.utf8) + middle + Array(tail.utf8)
    }

    @Test(arguments: invalidUTF8Messages)
    func invalidUTF8IsRefused(_ message: [UInt8]) throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let (reply, end) = try f.exchange(message)
        #expect(reply == "err:ARGS[E];")
        #expect(end == .eof)
        #expect(try f.store.userSummaries().isEmpty)
    }

    @Test func invalidUTF8InAPostIsNotStored() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("User")
        let message = Self.bytes("newpost:User:Title:bad ", [0xFF, 0xFE, 0x80], " bytes[E];")
        let (reply, _) = try f.exchange(message)
        #expect(reply == "err:ARGS[E];")
        #expect(try f.postCount(of: "User") == 0)
    }

    @Test func fieldsSplitOnTheFirstColonsOnly() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask("register:User:pa:ss:word[E];") == "reg:OK[E];")
        #expect(try f.ask("login:User:pa[E];") == "log:NA[E];")
        #expect(try f.ask("login:User:pa:ss:word[E];") == "log:OK[E];")
        #expect(try f.ask("newpost:User:Time:12:30 <b>sharp</b>\nsecond line[E];") == "post:OK[E];")
        let id = try #require(try f.store.user(named: "User")?.id)
        let post = try #require(try f.store.posts(ofUserID: id).first)
        #expect(post.title == "Time")
        #expect(post.content == "12:30 <b>sharp</b>\nsecond line")
        let page = try #require(f.page(of: "User"))
        #expect(page.contains("12:30 &lt;b&gt;sharp&lt;/b&gt;"))
        #expect(!page.contains("<b>sharp</b>"))
    }
}
