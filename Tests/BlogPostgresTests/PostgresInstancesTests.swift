import BlogCore
import BlogTestSupport
import BlogWire
import Foundation
import Synchronization
import Testing
import BlogModel
import BlogPages
@testable import BlogPostgres

/// Several blogd instances on one database: two `PostgresStore`s (two
/// clients, two pools) stand for two processes.
@Suite("PostgreSQL instances", .enabled(if: PostgresCluster.enabled))
struct PostgresInstancesTests {
    /// Posts of one user inserted at once through two instances are
    /// serialized by the insert lock: the groups are exactly what storing
    /// them one by one, in id order, would have chosen, so no group goes
    /// past the layout's limits and ids follow the groups.
    @Test func concurrentInsertsOfOneUserKeepTheLayout() throws {
        let url = try freshDatabase()
        let first = try openStore(url)
        let second = try openStore(url)
        defer {
            try? first.close()
            try? second.close()
        }
        let alice = try first.createUser(name: "alice", passwordHash: "h", at: t0)
        let layout = PageLayout(pageSize: 4, pageBytes: 100)
        let failures = Collector<String>()
        DispatchQueue.concurrentPerform(iterations: 60) { index in
            let store = index % 2 == 0 ? first : second
            do {
                _ = try store.insertPost(userID: alice.id, title: "t\(index)", content: "", weight: 7 + index % 5 * 9,
                                         at: t0, layout: layout)
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.all.isEmpty)
        let ids = try first.postIDs(ofUserID: alice.id, pages: 1...Int(Int32.max)).reversed()
        let posts = Dictionary(uniqueKeysWithValues: try second.posts(ids: Array(ids)).map { ($0.id, $0) })
        #expect(posts.count == 60)
        var last: PageGroup?
        for id in ids {
            let post = try #require(posts[id])
            let expected = layout.page(forWeight: post.weight, after: last)
            #expect(post.page == expected, "post \(id)")
            if last?.page == post.page {
                last!.count += 1
                last!.weight += post.weight
            } else {
                last = PageGroup(page: post.page, count: 1, weight: post.weight)
            }
        }
        for group in try first.pageGroups(ofUserID: alice.id, limit: nil) {
            #expect(group.count <= layout.pageSize)
            #expect(group.weight <= layout.pageBytes || group.count == 1)
        }
    }

    /// A post acknowledged by one instance is there for a client that
    /// connects afterwards, and after the first instance is gone.
    @Test func acknowledgedPostsAreDurable() throws {
        let url = try freshDatabase()
        let writer = try openStore(url)
        let alice = try writer.createUser(name: "alice", passwordHash: "h", at: t0)
        var acknowledged: [PostRecord] = []
        for index in 0 ..< 10 {
            acknowledged.append(try writer.addPost(userID: alice.id, title: "t\(index)", content: "c", at: t0))
        }
        let reader = try openStore(url)
        #expect(try reader.posts(ofUserID: alice.id) == acknowledged.reversed())
        try writer.close()
        try reader.close()
        let later = try openStore(url)
        defer { try? later.close() }
        #expect(try later.user(named: "ALICE") == alice)
        #expect(try later.posts(ofUserID: alice.id) == acknowledged.reversed())
    }

    /// Page locks of one user are held by one instance at a time.
    @Test func pageLocksExcludeEachOther() throws {
        let url = try freshDatabase()
        let first = try openStore(url)
        let second = try openStore(url)
        defer {
            try? first.close()
            try? second.close()
        }
        let inside = Collector<Int>()
        let overlaps = Collector<Int>()
        let holders = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 12) { index in
            let store = index % 2 == 0 ? first : second
            do {
                try store.withPageLock(userID: 7) {
                    holders.withLock { holders in
                        holders += 1
                        if holders > 1 { overlaps.append(index) }
                    }
                    // Reads through the store while holding the lock.
                    _ = try store.newestPosts(ofUserID: 7)
                    usleep(5_000)
                    holders.withLock { $0 -= 1 }
                    inside.append(index)
                }
            } catch {
                Issue.record("\(error)")
            }
        }
        #expect(inside.all.count == 12)
        #expect(overlaps.all.isEmpty)
        // Another user's lock is free meanwhile, and an error in the body
        // is the caller's, with the lock released.
        struct Refused: Error {}
        #expect(throws: Refused.self) { try first.withPageLock(userID: 8) { throw Refused() } }
        try second.withPageLock(userID: 8) {}
    }

    /// Two services (two instances) sharing one database and one public
    /// folder, posting for one user at once: the page on disk is what a
    /// rebuild renders from the database, byte for byte.
    @Test func twoServicesWriteTheSamePages() throws {
        let url = try freshDatabase()
        let folder = try makeTemporaryFolder()
        defer { removeTemporaryFolder(folder) }
        let stores = [try openStore(url), try openStore(url)]
        defer { stores.forEach { try? $0.close() } }
        let settings = BlogService.Settings(openPosting: true, scrypt: .testing, pageSize: 3)
        let services = try stores.map { store in
            try BlogService(store: store, pages: PublicFolder(folder: folder), settings: settings, logger: quiet)
        }
        var session = Session(peerAddress: "192.0.2.1")
        #expect(services[0].handle(message: Array("register:Alice:pw".utf8), session: &session).reply == .registered)
        let replies = Collector<Reply>()
        DispatchQueue.concurrentPerform(iterations: 24) { index in
            var session = Session(peerAddress: "192.0.2.\(index % 5)")
            replies.append(services[index % 2].handle(message: Array("newpost:alice:T\(index):text \(index)".utf8),
                                                      session: &session).reply)
        }
        #expect(replies.all.allSatisfy { $0 == .posted })
        let written = try PostgresServiceTests.pageFiles(in: folder)
        #expect(written.keys.contains("Alice.html"))
        #expect(written.keys.filter { $0.hasPrefix("Alice.") }.count >= 24 / 6, "archives rolled over")

        // A third instance rebuilds everything into a folder of its own.
        let rebuilt = try makeTemporaryFolder()
        defer { removeTemporaryFolder(rebuilt) }
        let third = try openStore(url)
        defer { try? third.close() }
        let rebuilder = try BlogService(store: third, pages: PublicFolder(folder: rebuilt), settings: settings, logger: quiet)
        #expect(try rebuilder.rebuildPages(of: []) == ["Alice"])
        #expect(try PostgresServiceTests.pageFiles(in: rebuilt) == written)
    }
}
