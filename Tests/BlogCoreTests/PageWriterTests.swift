import Dispatch
import Foundation
import Synchronization
import BlogTestSupport
import Testing
@testable import BlogCore
import BlogSQLite
import BlogModel
@testable import BlogPages

/// One page write per user at a time, shared by the requests that wait.
@Suite("PageWriter")
struct PageWriterTests {
    /// A SQLiteStore whose page lock a test can hold shut.
    final class GatedStorage: ForwardingStorage, @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        private let gated = Atomic(true)

        override func withPageLock<T>(userID: Int64, _ body: () throws -> T) throws -> T {
            if gated.exchange(false, ordering: .relaxed) {
                entered.signal()
                gate.wait()
            }
            return try body()
        }
    }

    /// Ten posts of one user committed while the first one's page write is
    /// held up: when it goes on, it renders all ten, and the other nine
    /// find their post shown without writing.
    @Test func postsCommittedTogetherShareOnePageWrite() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let storage = GatedStorage(store)
            let pages = UserPages(store: PublicFolder(folder: folder), layout: PageLayout(pageSize: 50),
                                  storage: storage, cache: FragmentCache())
            let writer = PageWriter(pages: pages)
            let alice = try store.createUser(name: "alice", passwordHash: "x", at: TestClock.start)
            let posts = try (0..<10).map { try store.addPost(userID: alice.id, title: "t\($0)", content: "c", at: TestClock.start) }
            let done = DispatchGroup()
            let failures = Collector<String>()
            func ensure(_ post: PostRecord) {
                DispatchQueue.global().async(group: done) {
                    do { try writer.ensure(alice, showing: post.id) } catch { failures.append("\(error)") }
                }
            }
            ensure(posts[0])
            storage.entered.wait()
            for post in posts.dropFirst() { ensure(post) }
            // The nine wait for the writer: a request waits or writes, and
            // nothing but the first can write while it holds the claim.
            #expect(writer.writeCount == 1)
            storage.gate.signal()
            done.wait()
            #expect(failures.all.isEmpty)
            #expect(writer.writeCount == 1, "one write showed all ten posts")
            let page = try #require(PublicFolder(folder: folder).read(user: "alice"))
            #expect(posts.allSatisfy { page.contains("id=\"post-\($0.id)\"") })
        }
    }

    /// A post committed after the write began waits, then writes again.
    @Test func aLaterPostGetsAWriteOfItsOwn() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let pages = UserPages(store: PublicFolder(folder: folder), layout: PageLayout(pageSize: 50),
                                  storage: store, cache: FragmentCache())
            let writer = PageWriter(pages: pages)
            let alice = try store.createUser(name: "alice", passwordHash: "x", at: TestClock.start)
            let first = try store.addPost(userID: alice.id, title: "one", content: "c", at: TestClock.start)
            try writer.ensure(alice, showing: first.id)
            try writer.ensure(alice, showing: first.id)
            #expect(writer.writeCount == 1, "already shown: no second write")
            let second = try store.addPost(userID: alice.id, title: "two", content: "c", at: TestClock.start)
            try writer.ensure(alice, showing: second.id)
            #expect(writer.writeCount == 2)
            #expect(PublicFolder(folder: folder).read(user: "alice")?.contains("\">two</a></h2>") == true)
        }
    }
}
