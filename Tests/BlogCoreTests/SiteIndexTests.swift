import Foundation
import GRDB
import Synchronization
import Testing
import BlogTestSupport
import BlogModel
@testable import BlogPages
@testable import BlogCore
@testable import BlogSQLite

/// The index of blogs kept from what changed: with many active blogs a
/// post reads its own blog's row and renders its own line, and the page
/// is still the one a full read of the index gives.
@Suite("Site index")
struct SiteIndexTests {
    let dayAgo = Date(timeIntervalSince1970: 1_800_000_000)

    /// Counts the rows the index's reads of recent activity return.
    final class CountingStorage: ForwardingStorage, @unchecked Sendable {
        let recentRows = Atomic<Int>(0)

        override func blogIndex(activeSince date: Date, limit: Int) throws(StorageError) -> [BlogEntry] {
            let entries = try store.blogIndex(activeSince: date, limit: limit)
            recentRows.add(entries.count, ordering: .relaxed)
            return entries
        }
    }

    /// `count` users `fill0…`, each with one post, the newest last, a
    /// minute apart from `start`: written straight to the database, as a
    /// site that has been running a while.
    func fill(_ store: SQLiteStore, count: Int, from start: Date) throws {
        try store.pool.write { db in
            for i in 0..<count {
                try db.execute(sql: "INSERT INTO users (name, password_hash, created_at) VALUES (?, 'x', ?)",
                               arguments: ["fill\(i)", start])
                let user = db.lastInsertedRowID
                let at = start.addingTimeInterval(Double(i) * 60)
                try db.execute(sql: """
                    INSERT INTO posts (user_id, title, content, created_at, page, weight) VALUES (?, ?, 'text', ?, 1, 10)
                    """, arguments: [user, "Post of fill\(i)", at])
                try db.execute(sql: """
                    UPDATE users SET post_count = 1, last_post_id = ?, last_post_at = ?, posts_version = 1 WHERE id = ?
                    """, arguments: [db.lastInsertedRowID, at, user])
            }
        }
    }

    func publicFolder(in folder: URL) throws -> PublicFolder {
        let url = folder.appendingPathComponent("public", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return PublicFolder(folder: url)
    }

    /// A database of `blogs` blogs (`fill`) a day old, its public folder,
    /// and an index over them not yet written.
    func withFilledIndex(blogs: Int,
                         _ body: (SQLiteStore, PublicFolder, SiteIndex, URL) throws -> Void) throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("b.sqlite").path)
            defer { try? store.close() }
            let pages = try publicFolder(in: folder)
            try fill(store, count: blogs, from: dayAgo)
            try body(store, pages, SiteIndex(pages: pages, storage: store, head: [], slack: 5), folder)
        }
    }

    /// What a full read of the index renders.
    func fullIndex(_ store: some BlogStorage, head: [UInt8] = []) throws -> String {
        String(decoding: IndexPage.render(try store.blogIndex(limit: IndexPage.limit), head: head), as: UTF8.self)
    }

    /// With more active blogs than the index lists, posts read only the
    /// rows of the blogs that posted, render only their lines, never read
    /// the whole index, and leave the page a full read would write.
    @Test func aPostReadsAndRendersOnlyItsOwnBlog() throws {
        let counting = Mutex<CountingStorage?>(nil)
        try withService(storage: { store in
            let storage = CountingStorage(store)
            counting.withLock { $0 = storage }
            return storage
        }) { (fx: ServiceFixture) throws in
            let storage = try #require(counting.withLock { $0 })
            try fill(fx.store, count: IndexPage.limit + 200, from: fx.clock.now.addingTimeInterval(-100_000))
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            fx.service.writeIndex()
            let fullReads = fx.service.siteIndex.fullReadCount
            let lines = fx.service.siteIndex.linesRenderedCount
            let rows = storage.recentRows.load(ordering: .relaxed)
            // alice has no posts: with a full list she is not on it yet.
            #expect(!(fx.pages.read(file: IndexPage.fileName) ?? "").contains("href=\"alice.html\""))
            for post in 1...5 {
                fx.clock.advance(by: 60)
                #expect(fx.send("newpost:alice:Post \(post):text", &session) == .posted)
                fx.service.index.flushAll()
            }
            fx.service.index.settle()
            #expect(fx.service.siteIndex.fullReadCount == fullReads)
            let rendered = fx.service.siteIndex.linesRenderedCount - lines
            #expect((1...5).contains(rendered))
            // Each read returns alice's row; the first also the newest
            // blog of the full read (read again within the slack).
            #expect(storage.recentRows.load(ordering: .relaxed) - rows <= rendered + 1)
            let page = try #require(fx.pages.read(file: IndexPage.fileName))
            #expect(page.contains("<li class=\"h-card\"><a class=\"p-name u-url\" href=\"alice.html\">alice</a> · <a href=\"alice/"))
            #expect(page.contains("Post 5</a> · 5 posts"))
            #expect(page == (try fullIndex(fx.store)))
        }
    }

    /// The blog that just fell off the index comes back first when it
    /// posts, and the one after the last place leaves: as a full read.
    @Test func aBlogPastTheLastPlaceComesBackFirst() throws {
        try withFilledIndex(blogs: IndexPage.limit + 1) { store, pages, index, folder in
            try index.write(.all)
            var page = try #require(pages.read(file: IndexPage.fileName))
            #expect(!page.contains("href=\"fill0.html\""))
            #expect(page.contains("href=\"fill1.html\""))
            let fill0 = try #require(try store.user(named: "fill0"))
            _ = try store.addPost(userID: fill0.id, title: "Back", content: "", at: dayAgo.addingTimeInterval(100_000))
            try index.write(.posts)
            page = try #require(pages.read(file: IndexPage.fileName))
            #expect(page.contains("<li class=\"h-card\"><a class=\"p-name u-url\" href=\"fill0.html\">fill0</a> · <a href=\"fill0/"))
            #expect(!page.contains("href=\"fill1.html\""))
            #expect(page == (try fullIndex(store)))
            #expect(index.fullReadCount == 1)
            #expect(index.linesRenderedCount == IndexPage.limit + 1)
        }
    }

    /// Another process (an admin command, another instance) wrote the
    /// index after a change this one did not see: the next write reads
    /// the index whole, so the change is not undone.
    @Test func anIndexWrittenElsewhereMakesTheNextWriteFull() throws {
        try withFilledIndex(blogs: 3) { store, pages, index, folder in
            try index.write(.all)
            let spam = try #require(try store.user(named: "fill1"))
            try store.deleteUser(id: spam.id)
            try pages.write(Array("written by the admin".utf8), file: IndexPage.fileName)
            let fill0 = try #require(try store.user(named: "fill0"))
            _ = try store.addPost(userID: fill0.id, title: "Later", content: "", at: dayAgo.addingTimeInterval(600))
            try index.write(.posts)
            let page = try #require(pages.read(file: IndexPage.fileName))
            #expect(!page.contains("fill1"))
            #expect(page == (try fullIndex(store)))
            #expect(index.fullReadCount == 2)
            // Removed: written again, whole.
            pages.remove(file: IndexPage.fileName)
            try index.write(.posts)
            #expect(pages.read(file: IndexPage.fileName) == page)
            #expect(index.fullReadCount == 3)
        }
    }

    /// A post changes nothing but its blog's line: the lines of the
    /// others are copied, not rendered again, and an unchanged index is
    /// not written again.
    @Test func unchangedLinesAreKept() throws {
        try withFilledIndex(blogs: 50) { store, pages, index, folder in
            try index.write(.all)
            #expect(index.linesRenderedCount == 50)
            let written = try #require(pages.read(file: IndexPage.fileName))
            let file = folder.appendingPathComponent("public/\(IndexPage.fileName)").path
            let inode = try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? Int
            try index.write(.all)
            try index.write(.posts)
            #expect(index.linesRenderedCount == 50)
            #expect(pages.read(file: IndexPage.fileName) == written)
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? Int == inode)
            let fill7 = try #require(try store.user(named: "fill7"))
            _ = try store.addPost(userID: fill7.id, title: "Again", content: "", at: dayAgo.addingTimeInterval(6000))
            try index.write(.posts)
            #expect(index.linesRenderedCount == 51)
            #expect(pages.read(file: IndexPage.fileName) == (try fullIndex(store)))
        }
    }
}
