import BlogWire
import BlogCore
import BlogTestSupport
import Dispatch
import Foundation
import Testing
import BlogModel
import BlogPages

/// What every `BlogStorage` does, run over each backend (`Backend`): the
/// service, the pages and the tools rely on exactly this.
@Suite("BlogStorage conformance")
struct StorageConformanceTests {
    @Test(arguments: Backend.available) func createUser(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let record = try store.createUser(name: "Alice", passwordHash: "$scrypt$x", at: t0)
            #expect(record.id > 0)
            #expect(record.name == "Alice")
            #expect(record.passwordHash == "$scrypt$x")
            #expect(record.createdAt == t0)
            let second = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            #expect(second.id != record.id)
        }
    }

    @Test(arguments: Backend.available) func nameTakenRegardlessOfCase(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            _ = try store.createUser(name: "Alice", passwordHash: "h", at: t0)
            for name in ["Alice", "alice", "ALICE", "aLiCe"] {
                #expect(storageError { _ = try store.createUser(name: name, passwordHash: "h2", at: t0) } == .nameTaken, "\(name)")
            }
            #expect(try store.userSummaries().map(\.name) == ["Alice"])
        }
    }

    @Test(arguments: Backend.available) func userNamedIsCaseInsensitive(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let created = try store.createUser(name: "Alice", passwordHash: "h", at: t0)
            for name in ["Alice", "alice", "ALICE"] {
                let found = try store.user(named: name)
                #expect(found == created, "\(name)")
                #expect(found?.name == "Alice", "keeps the registered case")
            }
            for name in ["alic", "alice2", "", "%", "' OR 1=1 --", "_lice"] {
                #expect(try store.user(named: name) == nil, "\(name)")
            }
        }
    }

    @Test(arguments: Backend.available) func addPostAndListNewestFirst(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            var made: [PostRecord] = []
            for index in 0 ..< 5 {
                let post = try store.addPost(userID: alice.id, title: "T\(index)", content: "line\n\(index):x",
                                             at: t0.addingTimeInterval(Double(index)))
                #expect(post.id > 0)
                #expect(post.userID == alice.id)
                made.append(post)
            }
            _ = try store.addPost(userID: bob.id, title: "bob's", content: "", at: t0)
            #expect(try store.posts(ofUserID: alice.id) == made.reversed())
            #expect(try store.posts(ofUserID: bob.id).map(\.title) == ["bob's"])
            #expect(try store.posts(ofUserID: 12345).isEmpty)
            #expect(try store.posts(ids: made.map { $0.id }).sorted { $0.id < $1.id } == made)
            #expect(try store.posts(ids: []).isEmpty)
        }
    }

    @Test(arguments: Backend.available) func newestFirstIsByIdNotByDate(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            _ = try store.addPost(userID: alice.id, title: "first", content: "", at: t0)
            _ = try store.addPost(userID: alice.id, title: "second", content: "", at: t0.addingTimeInterval(-3600))
            #expect(try store.posts(ofUserID: alice.id).map(\.title) == ["second", "first"])
        }
    }

    @Test(arguments: Backend.available) func textRoundTripsExactly(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let content = "ünïcödé 😀\r\n<b>&'\"\ttabs\n\n:colons:[E];"
            _ = try store.addPost(userID: alice.id, title: "Titulek článku", content: content, at: t0)
            let post = try #require(try store.posts(ofUserID: alice.id).first)
            #expect(post.title == "Titulek článku")
            #expect(post.content == content)
        }
    }

    /// A post's place reads back as sent, from every query that reads
    /// posts; a post without one has none.
    @Test(arguments: Backend.available) func placesRoundTripExactly(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let place = try Place(latitude: "-33.8688000", longitude: "151.2093")
            let placed = try store.insertPost(userID: alice.id, title: "t", content: "c", weight: 2, place: place, at: t0,
                                              layout: PageLayout(pageSize: 50), token: UUID()).record
            #expect(placed.place == place)
            let plain = try store.addPost(userID: alice.id, title: "u", content: "d", at: t0)
            #expect(try store.posts(ids: [placed.id, plain.id]).sorted { $0.id < $1.id }.map(\.place) == [place, nil])
            #expect(try store.recentPosts(ofUserID: alice.id, limit: 5).map(\.place) == [nil, place])
            #expect(try store.recentPosts(limit: 5).map(\.post.place) == [nil, place])
            #expect(try store.placedPosts(ofUserID: alice.id, limit: 10).map(\.id) == [placed.id], "the map's posts")
            #expect(try store.placedPosts(ofUserID: alice.id, limit: 0).isEmpty)
            let edited = try #require(try store.editPost(id: placed.id, ofUserID: alice.id, title: "t2", content: "c2",
                                                         weight: 4, at: t0.addingTimeInterval(1)))
            #expect(edited.place == place, "an edit keeps the place")
        }
    }

    /// Times keep their millisecond, as SQLite's do, and read back as the
    /// very `Date` the insert returned: pages rendered by two instances
    /// from one row are the same bytes.
    @Test(arguments: Backend.available) func timesRoundTripToTheMillisecond(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let odd = Date(timeIntervalSince1970: 1_800_000_000.9996)
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: odd)
            #expect(alice.createdAt == Date(timeIntervalSince1970: 1_800_000_000.999))
            #expect(try store.user(named: "alice")?.createdAt == alice.createdAt)
            for fraction in [0.0, 0.001, 0.25, 0.5, 0.999, 0.9995] {
                let post = try store.addPost(userID: alice.id, title: "t", content: "", at: t0.addingTimeInterval(fraction))
                let read = try #require(try store.posts(ids: [post.id]).first)
                #expect(read == post, "\(fraction)")
                #expect(read.createdAt.timeIntervalSince1970.rounded(.down) == t0.timeIntervalSince1970, "same second on the page")
                #expect(PageRenderer.fragment(read, user: "alice") == PageRenderer.fragment(post, user: "alice"))
            }
            #expect(try store.userSummaries().first?.registeredAt == alice.createdAt)
        }
    }

    @Test(arguments: Backend.available) func addPostToUnknownUser(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            #expect(storageError { _ = try store.addPost(userID: 42, title: "t", content: "c", at: t0) } == .unknownUser)
            #expect(try store.userSummaries().isEmpty)
        }
    }

    @Test(arguments: Backend.available) func userSummaries(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            #expect(try store.userSummaries().isEmpty)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0.addingTimeInterval(10))
            _ = try store.createUser(name: "Alice", passwordHash: "h", at: t0)
            _ = try store.createUser(name: "carol", passwordHash: "h", at: t0.addingTimeInterval(20))
            _ = try store.createUser(name: "9lives", passwordHash: "h", at: t0.addingTimeInterval(30))
            _ = try store.addPost(userID: bob.id, title: "a", content: "", at: t0.addingTimeInterval(100))
            _ = try store.addPost(userID: bob.id, title: "b", content: "", at: t0.addingTimeInterval(300))
            _ = try store.addPost(userID: bob.id, title: "c", content: "", at: t0.addingTimeInterval(200))
            let summaries = try store.userSummaries()
            // By name regardless of case, in byte order as SQLite's NOCASE
            // sorts, whatever the database's locale.
            #expect(summaries.map(\.name) == ["9lives", "Alice", "bob", "carol"])
            #expect(summaries.map(\.postCount) == [0, 0, 3, 0])
            // The time of the newest post (kept with the user), not the
            // latest time: "c", stored last, was dated earlier than "b".
            #expect(summaries.map(\.lastPostAt) == [nil, nil, t0.addingTimeInterval(200), nil])
            #expect(summaries.map(\.registeredAt) == [t0.addingTimeInterval(30), t0, t0.addingTimeInterval(10), t0.addingTimeInterval(20)])
        }
    }

    @Test(arguments: Backend.available) func allUsersByIdAndPostIDs(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let alice = try store.createUser(name: "Alice", passwordHash: "h", at: t0)
            #expect(try store.allUsers().map(\.name) == ["bob", "Alice"], "by id")
            for index in 0 ..< 4 {
                _ = try store.addPost(userID: index % 2 == 0 ? alice.id : bob.id, title: "t\(index)", content: "", at: t0)
            }
            let newest = try store.posts(ofUserID: alice.id)
            #expect(newest.map(\.title) == ["t2", "t0"])
            #expect(try store.postIDs(ofUserID: alice.id, pages: 1...1) == newest.map { $0.id })
            #expect(try store.postIDs(ofUserID: 999, pages: 1...9).isEmpty)
        }
    }

    /// Page groups, chosen in the insert: by count and by weight.
    @Test(arguments: Backend.available) func pageGroupsAndNewestPosts(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let layout = PageLayout(pageSize: 3, pageBytes: 100)
            var stubs: [PostStub] = []
            for index in 0 ..< 8 {
                let stored = try store.insertPost(userID: alice.id, title: "t\(index)", content: "", weight: 10, at: t0, layout: layout, token: UUID())
                stubs.append(PostStub(id: stored.record.id, page: stored.record.page, weight: 10))
            }
            #expect(stubs.map(\.page) == [1, 1, 1, 2, 2, 2, 3, 3])
            // A heavy post closes the open group by weight.
            let heavy = try store.insertPost(userID: alice.id, title: "big", content: "", weight: 95, at: t0, layout: layout, token: UUID())
            #expect(heavy.record.page == 4)
            stubs.append(PostStub(id: heavy.record.id, page: 4, weight: 95))
            #expect(try store.pageGroups(ofUserID: alice.id, limit: nil) == [
                PageGroup(page: 4, count: 1, weight: 95), PageGroup(page: 3, count: 2, weight: 20),
                PageGroup(page: 2, count: 3, weight: 30), PageGroup(page: 1, count: 3, weight: 30),
            ])
            #expect(try store.pageGroups(ofUserID: alice.id, limit: 2).map(\.page) == [4, 3])
            #expect(try store.newestPosts(ofUserID: alice.id) == Array(stubs.suffix(3).reversed()), "groups 4 and 3, newest first")
            #expect(try store.newestPosts(ofUserID: 999).isEmpty)
            #expect(try store.postIDs(ofUserID: alice.id, pages: 2...3) == stubs[3..<8].reversed().map(\.id))
        }
    }

    /// The index of blogs: most recently active first, then by name; a
    /// blog's time is its newest post's.
    @Test(arguments: Backend.available) func blogIndex(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let alice = try store.createUser(name: "Alice", passwordHash: "h", at: t0)
            _ = try store.createUser(name: "carol", passwordHash: "h", at: t0)
            _ = try store.createUser(name: "Dave", passwordHash: "h", at: t0)
            _ = try store.addPost(userID: bob.id, title: "b1", content: "", at: t0.addingTimeInterval(50))
            let a1 = try store.addPost(userID: alice.id, title: "a1", content: "", at: t0.addingTimeInterval(100))
            let b2 = try store.addPost(userID: bob.id, title: "b2", content: "", at: t0.addingTimeInterval(200))
            // Newest post first, then the blogs without posts, newest first.
            #expect(try store.blogIndex(limit: 10) == [
                BlogEntry(name: "bob", postCount: 2, lastPostID: b2.id, lastPostTitle: "b2", lastPostAt: t0.addingTimeInterval(200)),
                BlogEntry(name: "Alice", postCount: 1, lastPostID: a1.id, lastPostTitle: "a1", lastPostAt: t0.addingTimeInterval(100)),
                BlogEntry(name: "Dave"),
                BlogEntry(name: "carol"),
            ])
            // Deleting the newest post brings the one before it back.
            try store.deletePost(id: b2.id)
            #expect(try store.blogIndex(limit: 1) == [
                BlogEntry(name: "Alice", postCount: 1, lastPostID: a1.id, lastPostTitle: "a1", lastPostAt: t0.addingTimeInterval(100)),
            ])
            #expect(try store.blogIndex(limit: 2).last?.postCount == 1)
            #expect(try store.blogIndex(limit: 1).map(\.name) == ["Alice"])
        }
    }

    /// The blogs active since a time: only those whose newest post is
    /// from then on (never one without posts), newest first, at most
    /// `limit`: what changed since the site index was last read.
    @Test(arguments: Backend.available) func blogIndexActiveSince(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let alice = try store.createUser(name: "Alice", passwordHash: "h", at: t0)
            let carol = try store.createUser(name: "carol", passwordHash: "h", at: t0)
            _ = try store.createUser(name: "Dave", passwordHash: "h", at: t0)
            _ = try store.addPost(userID: carol.id, title: "c1", content: "", at: t0.addingTimeInterval(10))
            _ = try store.addPost(userID: bob.id, title: "b1", content: "", at: t0.addingTimeInterval(50))
            let a1 = try store.addPost(userID: alice.id, title: "a1", content: "", at: t0.addingTimeInterval(100))
            let b2 = try store.addPost(userID: bob.id, title: "b2", content: "", at: t0.addingTimeInterval(200))
            #expect(try store.blogIndex(activeSince: t0.addingTimeInterval(100), limit: 10) == [
                BlogEntry(name: "bob", postCount: 2, lastPostID: b2.id, lastPostTitle: "b2", lastPostAt: t0.addingTimeInterval(200)),
                BlogEntry(name: "Alice", postCount: 1, lastPostID: a1.id, lastPostTitle: "a1", lastPostAt: t0.addingTimeInterval(100)),
            ])
            #expect(try store.blogIndex(activeSince: t0.addingTimeInterval(100), limit: 1).map(\.name) == ["bob"])
            #expect(try store.blogIndex(activeSince: t0.addingTimeInterval(201), limit: 10).isEmpty)
            // The same as the whole index's blogs with posts.
            #expect(try store.blogIndex(activeSince: t0, limit: 10) == store.blogIndex(limit: 10).filter { $0.lastPostAt != nil })
        }
    }

    @Test(arguments: Backend.available) func deletingAUserDeletesTheirPosts(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let post = try store.addPost(userID: alice.id, title: "t", content: "", at: t0)
            _ = try store.addPost(userID: bob.id, title: "t", content: "", at: t0)
            try store.deleteUser(id: alice.id)
            #expect(try store.user(named: "alice") == nil)
            #expect(try store.posts(ids: [post.id]).isEmpty)
            #expect(try store.userSummaries().map(\.postCount) == [1])
            // The name is free again.
            _ = try store.createUser(name: "ALICE", passwordHash: "h", at: t0)
            let bobs = try store.posts(ofUserID: bob.id)
            try store.deletePost(id: bobs[0].id)
            #expect(try store.posts(ofUserID: bob.id).isEmpty)
        }
    }

    @Test(arguments: Backend.available) func concurrentCreatesOfOneName(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let results = Collector<StorageError?>()
            DispatchQueue.concurrentPerform(iterations: 20) { index in
                let name = index % 2 == 0 ? "Same" : "same"
                results.append(storageError { _ = try store.createUser(name: name, passwordHash: "h", at: t0) })
            }
            #expect(results.all.filter { $0 == nil }.count == 1)
            #expect(results.all.filter { $0 == .nameTaken }.count == 19)
            #expect(try store.userSummaries().count == 1)
        }
    }

    @Test(arguments: Backend.available) func closedStoreFails(_ backend: Backend) throws {
        let (store, cleanUp) = try backend.open()
        defer { cleanUp() }
        try store.close()
        #expect(storageError({ _ = try store.user(named: "alice") }) == .closed)
        try store.close()
    }
}
