import Foundation
import Testing
@testable import BlogCore
import BlogSQLite
import BlogWire
import BlogTestSupport
@testable import BlogPages

/// `posts`, `editpost`, `delpost`: replies, refusals, and pages that stay
/// what a rebuild from the database gives.
@Suite("Edit and delete")
struct EditDeleteTests {
    /// Registers `name` on a session of its own and posts `count` posts.
    private func author(_ fx: ServiceFixture, _ name: String, posts count: Int) -> (Session, [Int64]) {
        var session = Session(peerAddress: "192.0.2.10")
        #expect(fx.send("register:\(name):pw", &session) == .registered)
        for index in 0..<count { #expect(fx.send("newpost:\(name):Post \(index):text \(index)", &session) == .posted) }
        let ids = (try? fx.store.postIDs(ofUserID: fx.store.user(named: name)!.id, pages: 1...1_000_000)) ?? []
        return (session, ids)
    }

    private func listing(_ fx: ServiceFixture, _ message: String, _ session: inout Session) -> Outcome {
        fx.service.handle(message: Array(message.utf8), session: &session)
    }

    /// Every file of every user equals what the database renders, and the
    /// index and site feed are what they should be.
    private func expectPagesMatchTheDatabase(_ fx: ServiceFixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        fx.service.writeIndex()
        for user in try fx.store.allUsers() {
            for page in try fx.service.userPages.render(user) {
                #expect(fx.pages.contents(of: page.file) == page.bytes, "\(page.file)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func postsListsTheNewestWithIdDateAndTitle() throws {
        try withService { (fx: ServiceFixture) throws in
            var (session, ids) = author(fx, "alice", posts: 3)
            let outcome = listing(fx, "posts:alice", &session)
            #expect(outcome.reply == .postsListed)
            let text = String(decoding: outcome.bytes, as: UTF8.self)
            let date = PostDate.machine(fx.clock.now)
            #expect(text == "posts:OK:3\n\(ids[0])\t\(date)\tPost 2\n\(ids[1])\t\(date)\tPost 1\n\(ids[2])\t\(date)\tPost 0[E];")
            var other = Session(peerAddress: "192.0.2.99")
            #expect(listing(fx, "posts:alice", &other).bytes == Reply.postRefused.bytes, "not logged in from there")
            #expect(listing(fx, "posts:nobody", &session).reply == .postRefused)
            var empty = author(fx, "bob", posts: 0).0
            #expect(String(decoding: listing(fx, "posts:bob", &empty).bytes, as: UTF8.self) == "posts:OK:0[E];")
        }
    }

    @Test func postsListsAtMostFifty() throws {
        try withService { (fx: ServiceFixture) throws in
            var (session, _) = author(fx, "alice", posts: 55)
            let parsed = Reply.parsePostListing(String(decoding: listing(fx, "posts:alice", &session).bytes, as: UTF8.self))
            #expect(parsed?.count == BlogService.listedPosts)
            #expect(parsed?.first?.title == "Post 54")
        }
    }

    @Test func anEditShowsEverywhereWithItsDate() throws {
        try withService { (fx: ServiceFixture) throws in
            var (session, ids) = author(fx, "alice", posts: 3)
            let middle = ids[1]
            fx.clock.advance(by: 3600)
            #expect(fx.send("editpost:alice:\(middle):Fixed <title>:New text", &session) == .edited)
            let page = try #require(fx.page("alice"))
            #expect(page.contains(">Fixed &lt;title&gt;</a></h2>"))
            #expect(page.contains("edited <time class=\"dt-updated\" datetime=\"\(PostDate.machine(fx.clock.now))\">"))
            #expect(!page.contains(">Post 1</a>"))
            let own = try #require(fx.pages.read(file: PageRenderer.postFile(user: "alice", id: middle)))
            #expect(own.contains("New text") && own.contains("<title>Fixed &lt;title&gt; – alice</title>"))
            let feed = try #require(fx.pages.read(file: "alice.atom"))
            #expect(feed.contains("Fixed &lt;title&gt;"), "the feed is rewritten before the reply")
            try expectPagesMatchTheDatabase(fx)
        }
    }

    @Test func aDeletionLeavesATombstoneAndRelinksTheNeighbours() throws {
        try withService { (fx: ServiceFixture) throws in
            var (session, ids) = author(fx, "alice", posts: 3)
            let (newest, middle, oldest) = (ids[0], ids[1], ids[2])
            #expect(fx.send("delpost:alice:\(middle)", &session) == .deleted)
            #expect(!fx.pages.exists(file: PageRenderer.postFile(user: "alice", id: middle)))
            #expect(fx.pages.exists(file: PageRenderer.goneFile(user: "alice", id: middle)))
            #expect(!(fx.page("alice") ?? "").contains(">Post 1</a>"))
            let newer = try #require(fx.pages.read(file: PageRenderer.postFile(user: "alice", id: newest)))
            #expect(newer.contains("href=\"alice/\(oldest).html\">← Older post"), "links past the deleted post")
            let older = try #require(fx.pages.read(file: PageRenderer.postFile(user: "alice", id: oldest)))
            #expect(older.contains("href=\"alice/\(newest).html\">Newer post →"))
            #expect(fx.send("delpost:alice:\(middle)", &session) == .deleteRefused, "gone already")
            // Its id is never given again.
            #expect(fx.send("delpost:alice:\(newest)", &session) == .deleted)
            #expect(fx.send("newpost:alice:Next:x", &session) == .posted)
            #expect(try fx.store.postIDs(ofUserID: fx.store.user(named: "alice")!.id, pages: 1...100).first! > newest)
            try expectPagesMatchTheDatabase(fx)
        }
    }

    @Test func refusalsChangeNothing() throws {
        try withService { (fx: ServiceFixture) throws in
            var (alice, aliceIDs) = author(fx, "alice", posts: 2)
            var (bob, _) = author(fx, "bob", posts: 1)
            fx.service.writeIndex()
            let before = try allFileNames(in: fx.publicFolder).map { ($0, fx.pages.contents(of: $0)) }
            #expect(fx.send("editpost:bob:\(aliceIDs[0]):Mine now:x", &bob) == .editRefused, "not bob's post")
            #expect(fx.send("delpost:bob:\(aliceIDs[0])", &bob) == .deleteRefused, "not bob's post")
            #expect(fx.send("editpost:alice:999999:T:x", &alice) == .editRefused, "no such post")
            #expect(fx.send("delpost:alice:999999", &alice) == .deleteRefused, "no such post")
            #expect(fx.send("editpost:alice:\(aliceIDs[0]):T:x", from: "192.0.2.77") == .editRefused, "not logged in there")
            #expect(fx.send("delpost:alice:\(aliceIDs[0])", from: "192.0.2.77") == .deleteRefused, "not logged in there")
            #expect(fx.send("editpost:alice:0:T:x", &alice) == .badArguments)
            #expect(fx.send("editpost:alice:-1:T:x", &alice) == .badArguments)
            #expect(fx.send("editpost:alice:1x:T:x", &alice) == .badArguments)
            #expect(fx.send("delpost:alice:99999999999999999999", &alice) == .badArguments)
            #expect(fx.send("editpost:alice:\(aliceIDs[0]): :x", &alice) == .badArguments, "empty title")
            #expect(fx.send("delpost:alice", &alice) == .badArguments)
            #expect(fx.send("posts:alice:x", &alice) == .badArguments)
            fx.service.writeIndex()
            let after = try allFileNames(in: fx.publicFolder).map { ($0, fx.pages.contents(of: $0)) }
            #expect(after.map(\.0) == before.map(\.0))
            #expect(zip(after, before).allSatisfy { $0.1 == $1.1 })
            #expect(try fx.store.posts(ids: aliceIDs).map(\.title).sorted() == ["Post 0", "Post 1"])
        }
    }

    /// A property-style test: posts, edits and deletes in a random mix
    /// from several clients at once; afterwards every page, post page,
    /// tombstone and feed equals a rebuild from the database.
    @Test(arguments: [UInt64(1), 2, 3])
    func anyMixEqualsARebuild(seed: UInt64) throws {
        try withService(pageSize: 3) { (fx: ServiceFixture) throws in
            let names = ["ann", "bob", "cid"]
            for name in names { _ = author(fx, name, posts: 2) }
            DispatchQueue.concurrentPerform(iterations: names.count * 2) { worker in
                let name = names[worker % names.count]
                var random = SeededGenerator(seed: seed &* 31 &+ UInt64(worker))
                var session = Session(peerAddress: "192.0.2.10")
                session.authenticatedUsers.insert(name)
                for step in 0..<25 {
                    let ids = (try? fx.store.postIDs(ofUserID: fx.store.user(named: name)!.id, pages: 1...1_000_000)) ?? []
                    let target = ids.isEmpty ? nil : ids[Int(random.next() % UInt64(ids.count))]
                    switch (random.next() % 10, target) {
                    case (0...2, _), (_, nil):
                        _ = fx.send("newpost:\(name):w\(worker) s\(step):\(String(repeating: "x", count: Int(random.next() % 80)))", &session)
                    case (3...4, _):
                        // With a place: on the page, the post's page and the feed.
                        let (lat, lon) = (Int(random.next() % 179) - 89, Int(random.next() % 360) - 180)
                        _ = fx.send("geopost:\(name):\(lat).5:\(lon):w\(worker) s\(step):here", &session)
                    case (5...7, let id?):
                        _ = fx.send("editpost:\(name):\(id):edit \(worker) \(step):changed", &session)
                    case (_, let id?):
                        _ = fx.send("delpost:\(name):\(id)", &session)
                    }
                }
            }
            try expectPagesMatchTheDatabase(fx)
            // And a repair finds nothing to do.
            #expect(try fx.service.repairPages().rebuilt.isEmpty)
            // The feeds the service wrote, after edits and deletions, are
            // valid Atom (RFC 4287's schema, feedparser).
            let feeds = try allFileNames(in: fx.publicFolder).filter { $0.hasSuffix(".atom") }
            #expect(feeds.count == names.count + 1)
            let (status, output) = try checkFeeds(feeds.map { fx.publicFolder.appendingPathComponent($0).path })
            #expect(status == 0, "check_feed.py: \(output)")
        }
    }
}
