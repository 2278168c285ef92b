import Foundation
import Testing
import BlogTestSupport
@testable import BlogCore
import BlogSQLite
import BlogModel
@testable import BlogPages

@Suite("Index page")
struct IndexPageTests {
    let early = Date(timeIntervalSince1970: 1_800_000_000)
    let late = Date(timeIntervalSince1970: 1_800_003_600)

    /// In the storage's order (newest post first), each blog with its
    /// newest post's title linked to its page, its count and date.
    @Test func listsBlogsInTheStoragesOrderWithTheirNewestPost() {
        let page = text(IndexPage.render([
            BlogEntry(name: "new", postCount: 3, lastPostID: 9, lastPostTitle: "Fresh <news>", lastPostAt: late),
            BlogEntry(name: "old", postCount: 1, lastPostID: 2, lastPostTitle: "Once", lastPostAt: early),
            BlogEntry(name: "quiet"),
            BlogEntry(name: "Also-quiet"),
        ]))
        let order = ["new.html", "old.html", "quiet.html", "Also-quiet.html"].map { page.range(of: "href=\"\($0)\"")!.lowerBound }
        #expect(order == order.sorted())
        #expect(page.contains("<a href=\"new/9.html\">Fresh &lt;news&gt;</a> · 3 posts · <time datetime=\"\(PostDate.machine(late))\">"))
        #expect(page.contains("Once</a> · 1 post · "))
        #expect(page.contains("<link rel=\"alternate\" type=\"application/atom+xml\" href=\"index.atom\""))
        #expect(page.contains("no posts yet"))
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("<link rel=\"stylesheet\" href=\"style.css\">"))
        #expect(page.contains("<meta name=\"viewport\""))
    }

    @Test func emptyIndexSaysSo() {
        #expect(text(IndexPage.render([])).contains("No blogs yet."))
    }

    @Test func namesAreEscaped() {
        // Names cannot hold markup, but the renderer does not rely on that.
        let page = text(IndexPage.render([BlogEntry(name: "<b>x", lastPostAt: nil)]))
        #expect(!page.contains("<b>x"))
        #expect(page.contains("&lt;b&gt;x"))
    }

    @Test func serviceKeepsTheIndexUpToDate() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            fx.service.writeIndex()
            var index = try #require(fx.pages.read(file: IndexPage.fileName))
            #expect(index.contains("href=\"alice.html\""))
            #expect(index.contains("no posts yet"))

            #expect(fx.send("newpost:alice:t:c", &session) == .posted)
            fx.service.writeIndex()
            index = try #require(fx.pages.read(file: IndexPage.fileName))
            #expect(index.contains("<time datetime=\"\(PostDate.machine(fx.clock.now))\""))
            #expect(!index.contains("no posts yet"))
        }
    }

    @Test func backgroundWriterCatchesUpWithoutAFlush() throws {
        try withService { (fx: ServiceFixture) throws in
            for name in ["a1", "a2", "a3"] { #expect(fx.send("register:\(name):pw") == .registered) }
            let deadline = Date().addingTimeInterval(5)
            var index = ""
            while Date() < deadline {
                index = fx.pages.read(file: IndexPage.fileName) ?? ""
                if index.contains("a3.html") { break }
                usleep(20_000)
            }
            #expect(["a1", "a2", "a3"].allSatisfy { index.contains("href=\"\($0).html\"") })
        }
    }

    @Test func storeIndexHasTheNewestPostPerUser() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("b.sqlite").path)
            defer { try? store.close() }
            let alice = try store.createUser(name: "alice", passwordHash: "x", at: early)
            _ = try store.createUser(name: "bob", passwordHash: "x", at: early)
            _ = try store.addPost(userID: alice.id, title: "1", content: "", at: early)
            _ = try store.addPost(userID: alice.id, title: "2", content: "", at: late)
            let entries = try store.blogIndex(limit: 10).sorted { $0.name < $1.name }
            #expect(entries.map(\.name) == ["alice", "bob"])
            #expect(entries.map(\.lastPostAt) == [late, nil])
            #expect(entries.map(\.lastPostTitle) == ["2", nil])
            #expect(entries.map(\.postCount) == [2, 0])
        }
    }

    /// The index lists at most `limit` blogs, the most recently active.
    @Test func storeIndexIsBoundedToTheMostRecentlyActive() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("b.sqlite").path)
            defer { try? store.close() }
            for index in 0..<5 {
                let user = try store.createUser(name: "u\(index)", passwordHash: "x", at: early)
                _ = try store.addPost(userID: user.id, title: "t", content: "", at: early.addingTimeInterval(Double(index)))
            }
            _ = try store.createUser(name: "silent", passwordHash: "x", at: early)
            #expect(try store.blogIndex(limit: 3).map(\.name) == ["u4", "u3", "u2"])
            #expect(try store.blogIndex(limit: 10).last?.name == "silent")
        }
    }
}
