import BlogCore
import BlogTestSupport
import BlogWire
import Foundation
import Testing
import BlogPages
@testable import BlogPostgres

/// The whole service on PostgreSQL: register, login, post, and the page.
@Suite("BlogService on PostgreSQL", .enabled(if: PostgresCluster.enabled))
struct PostgresServiceTests {
    /// The user pages in `folder` (the index is left out: it is rewritten
    /// in the background), by file name.
    static func pageFiles(in folder: URL) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path)
        where name.hasSuffix(".html") && !name.hasPrefix(".") && name != IndexPage.fileName {
            files[name] = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
        }
        return files
    }

    @Test func registerLoginPostAndThePage() throws {
        let url = try freshDatabase()
        let folder = try makeTemporaryFolder()
        defer { removeTemporaryFolder(folder) }
        let store = try openStore(url)
        defer { try? store.close() }
        let service = try BlogService(store: store, pages: PublicFolder(folder: folder),
                                      settings: .init(scrypt: .testing), logger: quiet)
        func send(_ message: String, from address: String = "192.0.2.10") -> Reply {
            var session = Session(peerAddress: address)
            return service.handle(message: Array(message.utf8), session: &session).reply
        }
        #expect(send("register:Alice:secret") == .registered)
        #expect(send("register:ALICE:other") == .nameTaken)
        #expect(send("login:alice:wrong") == .loginRefused)
        #expect(send("login:alice:secret", from: "192.0.2.20") == .loggedIn)
        #expect(send("newpost:alice:Hello:First <post>\nline two") == .posted)
        #expect(send("newpost:Alice:Again:Second", from: "192.0.2.20") == .posted)
        #expect(send("newpost:alice:Sneaky:not logged in", from: "192.0.2.99") == .postRefused)
        #expect(send("newpost:nobody:T:x") == .postRefused)

        let page = try #require(service.pages.read(user: "Alice"))
        let again = try #require(page.range(of: "\">Again</a></h2>"))
        let hello = try #require(page.range(of: "\">Hello</a></h2>"))
        #expect(again.lowerBound < hello.lowerBound, "newest first")
        #expect(page.contains("First &lt;post&gt;<br>line two"))
        #expect(!page.contains("Sneaky"))

        // What a rebuild writes, from the database alone, is the same.
        let written = try Self.pageFiles(in: folder)
        #expect(try service.rebuildPages(of: ["alice"]) == ["Alice"])
        #expect(try Self.pageFiles(in: folder) == written)
        #expect(try service.repairPages().rebuilt.isEmpty)
        service.writeIndex()
        #expect(service.pages.read(file: IndexPage.fileName)?.contains("Alice.html") == true)
    }
}
