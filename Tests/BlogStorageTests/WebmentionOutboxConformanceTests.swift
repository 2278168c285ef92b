import BlogPages
import BlogTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing
import BlogModel

/// The Webmention outbox, the same on every backend: rows queued in the
/// post paths' own commits, claimed under a lease, finished or retried by
/// the version claimed.
@Suite("BlogStorage conformance: the Webmention outbox")
struct WebmentionOutboxConformanceTests {
    private let links = MentionLinks { LinkedText.urls(in: $0) }

    private func targets(_ store: any BlogStorage) throws -> [String] {
        try store.queuedWebmentions(limit: 100).map(\.target).sorted()
    }

    @Test(arguments: Backend.available) func nothingIsQueuedUntilTheRuleIsGiven(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            _ = try store.addPost(userID: alice.id, title: "t", content: "see https://a.example/", at: t0)
            #expect(try targets(store).isEmpty)
            store.queueWebmentions(with: links)
            _ = try store.addPost(userID: alice.id, title: "t", content: "see https://a.example/ and ftp://b.example/",
                                  at: t0)
            #expect(try targets(store) == ["https://a.example/"])
        }
    }

    @Test(arguments: Backend.available) func everyChangeOfAPostQueuesItsLinks(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueWebmentions(with: links)
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let post = try store.addPost(userID: alice.id, title: "t",
                                         content: "https://a.example/x and https://b.example/y?q=1 and https://a.example/x",
                                         at: t0)
            let queued = try store.queuedWebmentions(limit: 10)
            #expect(queued.map(\.target) == ["https://a.example/x", "https://b.example/y?q=1"], "once each, in order")
            #expect(queued.allSatisfy { $0.postID == post.id && $0.userID == alice.id && $0.attempts == 0 })

            // Sent: gone. An edit then queues the old links and the new.
            for mention in try store.claimWebmentions(dueBy: t0, lease: 60, limit: 10) {
                try store.finishWebmention(mention)
            }
            #expect(try targets(store).isEmpty)
            _ = try #require(try store.editPost(id: post.id, ofUserID: alice.id, title: "t",
                                                content: "now https://c.example/", weight: 1, at: t0))
            #expect(try targets(store) == ["https://a.example/x", "https://b.example/y?q=1", "https://c.example/"])
            for mention in try store.claimWebmentions(dueBy: t0, lease: 60, limit: 10) {
                try store.finishWebmention(mention)
            }

            // The trash queues its links (the page answers 410), a restore
            // queues them again.
            _ = try #require(try store.trashPost(id: post.id, ofUserID: alice.id, at: t0))
            #expect(try targets(store) == ["https://c.example/"])
            for mention in try store.claimWebmentions(dueBy: t0, lease: 60, limit: 10) {
                try store.finishWebmention(mention)
            }
            _ = try #require(try store.restorePost(id: post.id, ofUserID: alice.id))
            #expect(try targets(store) == ["https://c.example/"])

            // The admin's deletion with a tombstone queues; a post taken
            // back (never shown) takes its rows with it.
            for mention in try store.claimWebmentions(dueBy: t0, lease: 60, limit: 10) {
                try store.finishWebmention(mention)
            }
            _ = try #require(try store.removePost(id: post.id, ofUserID: nil, tombstone: true))
            #expect(try targets(store) == ["https://c.example/"])
            let unshown = try store.addPost(userID: alice.id, title: "t", content: "https://d.example/", at: t0)
            #expect(try targets(store) == ["https://c.example/", "https://d.example/"])
            _ = try store.removePost(id: unshown.id, ofUserID: nil, tombstone: false)
            #expect(try targets(store) == ["https://c.example/"])
        }
    }

    @Test(arguments: Backend.available) func aClaimIsLeasedAndRetriedByItsVersion(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueWebmentions(with: links)
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let post = try store.addPost(userID: alice.id, title: "t", content: "https://a.example/", at: t0)
            let claimed = try #require(try store.claimWebmentions(dueBy: t0, lease: 60, limit: 10).first)
            #expect(claimed.attempts == 1 && claimed.due == t0.addingTimeInterval(60))
            #expect(try store.claimWebmentions(dueBy: t0.addingTimeInterval(59), lease: 60, limit: 10).isEmpty,
                    "leased")
            // A sender that died: the row comes back when the lease ends.
            let again = try #require(try store.claimWebmentions(dueBy: t0.addingTimeInterval(60), lease: 60,
                                                                 limit: 10).first)
            #expect(again.id == claimed.id && again.attempts == 2)
            try store.retryWebmention(again, at: t0.addingTimeInterval(600))
            #expect(try store.claimWebmentions(dueBy: t0.addingTimeInterval(599), lease: 60, limit: 10).isEmpty)
            let third = try #require(try store.claimWebmentions(dueBy: t0.addingTimeInterval(600), lease: 60,
                                                                 limit: 10).first)
            #expect(third.attempts == 3)

            // Queued again by an edit while claimed: the claim's finish
            // leaves the new row, due at once, its attempts reset.
            _ = try store.editPost(id: post.id, ofUserID: alice.id, title: "t", content: "https://a.example/ again",
                                   weight: 1, at: t0)
            try store.finishWebmention(third)
            let requeued = try #require(try store.queuedWebmentions(limit: 10).first)
            #expect(requeued.attempts == 0 && requeued.version == third.version + 1 && requeued.due <= t0)
            try store.retryWebmention(third, at: t0.addingTimeInterval(9_999))
            #expect(try store.queuedWebmentions(limit: 10).first?.due == requeued.due, "an old claim changes nothing")
        }
    }

    /// The rows are part of the post's own commit: an insert or an edit
    /// that rolls back (a photo it cannot have, a suspended author) leaves
    /// none.
    /// A batch's results in one call: finished rows go, a retried one is
    /// due at its time and not before (versions: `aClaimIsLeasedAndRetriedByItsVersion`).
    @Test(arguments: Backend.available) func aBatchIsSettledAtOnce(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueWebmentions(with: links)
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            _ = try store.addPost(userID: alice.id, title: "t",
                                  content: "https://a.example/1 https://b.example/2 https://c.example/3", at: t0)
            let claimed = try store.claimWebmentions(dueBy: t0, lease: 60, limit: 10)
            #expect(claimed.map(\.target) == ["https://a.example/1", "https://b.example/2", "https://c.example/3"])
            let later = t0.addingTimeInterval(600)
            try store.settleWebmentions([(claimed[0], nil), (claimed[1], later), (claimed[2], nil)])
            #expect(try targets(store) == ["https://b.example/2"], "a and c finished, b due later")
            #expect(try store.claimWebmentions(dueBy: t0.addingTimeInterval(300), lease: 60, limit: 10).isEmpty,
                    "b is not due before its time (and its lease is gone)")
            #expect(try store.claimWebmentions(dueBy: later, lease: 60, limit: 10).map(\.target) == ["https://b.example/2"])
        }
    }

    @Test(arguments: Backend.available) func aChangeThatRollsBackQueuesNothing(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueWebmentions(with: links)
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let missing = String(repeating: "ab", count: 16)
            #expect(throws: StorageError.unknownPhoto) {
                _ = try store.insertPost(userID: alice.id, title: "t", content: "https://a.example/", weight: 1, place: nil,
                                         photos: [missing], at: t0, layout: PageLayout(pageSize: 50))
            }
            let post = try store.addPost(userID: alice.id, title: "t", content: "plain", at: t0)
            #expect(throws: StorageError.unknownPhoto) {
                _ = try store.editPost(id: post.id, ofUserID: alice.id,
                                       PostEdit(title: "t", content: "https://b.example/",
                                                photos: [PhotoAttachment(name: missing, alt: "")]),
                                       weight: 1, photoWeight: { _ in 0 }, at: t0)
            }
            try store.setSuspended(userID: alice.id, true, at: t0)
            #expect(throws: StorageError.unknownUser) {
                _ = try store.addPost(userID: alice.id, title: "t", content: "https://c.example/", at: t0)
            }
            #expect(try targets(store).isEmpty)
        }
    }

    /// Claims racing on many threads each get rows no other claim got.
    @Test(arguments: Backend.available) func concurrentClaimsNeverShareARow(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueWebmentions(with: links)
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let text = (1...40).map { "https://h\($0).example/" }.joined(separator: " ")
            _ = try store.addPost(userID: alice.id, title: "t", content: text, at: t0)
            let claimed = Mutex<[Int64]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                while let batch = try? store.claimWebmentions(dueBy: t0, lease: 600, limit: 3), !batch.isEmpty {
                    claimed.withLock { $0 += batch.map(\.id) }
                }
            }
            let ids = claimed.withLock { $0 }
            #expect(ids.count == 40 && Set(ids).count == 40)
        }
    }

    @Test func theRuleIsBounded() {
        let rule = MentionLinks(limit: 2, maxLength: 30) { LinkedText.urls(in: $0) }
        let long = "https://example.com/" + String(repeating: "a", count: 20)
        #expect(rule.targets(["\(long) https://a.example/ https://b.example/ https://c.example/"])
                == ["https://a.example/", "https://b.example/"])
        #expect(rule.targets(["https://a.example/", "https://a.example/ https://b.example/"])
                == ["https://a.example/", "https://b.example/"])
    }
}
