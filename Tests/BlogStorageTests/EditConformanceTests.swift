import BlogCore
import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// Edits, deletions, suspensions and the reads the post pages and feeds
/// need, the same on every backend.
@Suite("BlogStorage conformance: edits and deletions")
struct EditConformanceTests {
    @Test(arguments: Backend.available) func editKeepsTheGroupAndMarksTheTime(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let post = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            let edited = try #require(try store.editPost(id: post.id, ofUserID: alice.id, title: "T2", content: "C2",
                                                         weight: 4, at: t0.addingTimeInterval(60.5)))
            #expect(edited.title == "T2" && edited.content == "C2" && edited.weight == 4 && edited.page == post.page)
            #expect(edited.createdAt == post.createdAt && edited.updatedAt == t0.addingTimeInterval(60.5))
            #expect(try store.posts(ids: [post.id]) == [edited])
            #expect(try store.editPost(id: post.id, ofUserID: bob.id, title: "x", content: "", weight: 1, at: t0) == nil)
            #expect(try store.editPost(id: post.id + 100, ofUserID: alice.id, title: "x", content: "", weight: 1, at: t0) == nil)
            #expect(try store.postStubs(ofUserID: alice.id, pages: 1...9) == [edited.stub])
        }
    }

    @Test(arguments: Backend.available) func removeKeepsCountsTombstonesAndNeverReusesAnId(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let first = try store.addPost(userID: alice.id, title: "1", content: "", at: t0)
            let second = try store.addPost(userID: alice.id, title: "2", content: "", at: t0.addingTimeInterval(1))
            #expect(try store.removePost(id: second.id, ofUserID: bob.id, tombstone: true) == nil, "not bob's")
            #expect(try store.removePost(id: second.id, ofUserID: alice.id, tombstone: true) == second)
            #expect(try store.removePost(id: second.id, ofUserID: nil, tombstone: true) == nil, "gone")
            #expect(try store.deletedPostIDs(ofUserID: alice.id) == [second.id])
            let entry = try #require(try store.blogIndex(limit: 1).first)
            #expect(entry.postCount == 1 && entry.lastPostID == first.id && entry.lastPostTitle == "1")
            let third = try store.addPost(userID: alice.id, title: "3", content: "", at: t0.addingTimeInterval(2))
            #expect(third.id > second.id, "the deleted newest id is not given again")
            try store.deletePost(id: third.id)
            #expect(try store.deletedPostIDs(ofUserID: alice.id) == [second.id], "a take-back leaves no tombstone")
        }
    }

    @Test(arguments: Backend.available) func neighboursRecentPostsAndHeadings(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let layout = PageLayout(pageSize: 2)
            var mine: [PostRecord] = []
            for index in 0..<5 {
                mine.append(try store.addPost(userID: alice.id, title: "a\(index)", content: "x",
                                              at: t0.addingTimeInterval(Double(index)), layout: layout))
                _ = try store.addPost(userID: bob.id, title: "b\(index)", content: "y", at: t0.addingTimeInterval(Double(index)))
            }
            let middle = try store.adjacentPosts(to: mine[2].stub, ofUserID: alice.id)
            #expect(middle.older?.id == mine[1].id && middle.newer?.id == mine[3].id, "across page groups")
            #expect(try store.adjacentPosts(to: mine[0].stub, ofUserID: alice.id).older == nil)
            #expect(try store.adjacentPosts(to: mine[4].stub, ofUserID: alice.id).newer == nil)
            try store.deletePost(id: mine[2].id)
            let around = try store.adjacentPosts(to: mine[2].stub, ofUserID: alice.id)
            #expect(around.older?.id == mine[1].id && around.newer?.id == mine[3].id, "around a deleted post")
            #expect(try store.recentPosts(ofUserID: alice.id, limit: 2).map(\.title) == ["a4", "a3"])
            #expect(try store.postHeadings(ofUserID: alice.id, limit: 3).map(\.title) == ["a4", "a3", "a1"])
            #expect(try store.postHeadings(ofUserID: alice.id, limit: 1).first?.createdAt == t0.addingTimeInterval(4))
            let site = try store.recentPosts(limit: 3)
            #expect(site.map(\.post.title) == ["b4", "a4", "b3"] && site.map(\.author) == ["bob", "alice", "bob"])
        }
    }

    @Test(arguments: Backend.available) func aSuspendedUserGetsNoPost(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            try store.setSuspended(userID: alice.id, true, at: t0)
            #expect(try store.user(named: "ALICE")?.suspended == true)
            #expect(try store.user(id: alice.id)?.suspended == true)
            #expect(throws: StorageError.unknownUser) { try store.addPost(userID: alice.id, title: "t", content: "", at: t0) }
            #expect(try store.posts(ofUserID: alice.id).isEmpty)
            try store.setSuspended(userID: alice.id, false, at: t0)
            #expect(try store.user(id: alice.id)?.suspended == false)
            _ = try store.addPost(userID: alice.id, title: "t", content: "", at: t0)
            #expect(throws: StorageError.unknownUser) { try store.setSuspended(userID: alice.id + 99, true, at: t0) }
            #expect(try store.user(id: alice.id + 99) == nil)
        }
    }
}
