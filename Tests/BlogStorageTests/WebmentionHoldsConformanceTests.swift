import BlogPages
import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// A held user's outbox rows (`WebmentionHolds`: a change of theirs is
/// between its commit and its pages), the same on every backend: no claim
/// takes them, whatever their due time, until every hold is let go;
/// other users' rows go meanwhile.
@Suite("BlogStorage conformance: Webmention holds")
struct WebmentionHoldsConformanceTests {
    @Test(arguments: Backend.available) func aHeldUsersRowsWait(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            store.queueWebmentions(with: MentionLinks { LinkedText.urls(in: $0) })
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            store.holdWebmentions(ofUserID: alice.id)
            store.holdWebmentions(ofUserID: alice.id)
            _ = try store.addPost(userID: alice.id, title: "a", content: "https://a.example/", at: t0)
            _ = try store.addPost(userID: bob.id, title: "b", content: "https://b.example/", at: t0)
            let later = t0.addingTimeInterval(3600)
            #expect(try store.claimWebmentions(dueBy: later, lease: 60, limit: 10).map(\.target) == ["https://b.example/"],
                    "\(backend)")
            store.releaseWebmentions(ofUserID: alice.id)
            #expect(try store.claimWebmentions(dueBy: later, lease: 60, limit: 10).isEmpty, "\(backend): one hold left")
            store.releaseWebmentions(ofUserID: alice.id)
            store.releaseWebmentions(ofUserID: alice.id)  // one too many changes nothing
            #expect(try store.claimWebmentions(dueBy: later, lease: 60, limit: 10).map(\.target) == ["https://a.example/"])
            store.holdWebmentions(ofUserID: bob.id)
            #expect(try store.queuedWebmentions(limit: 10).count == 2, "holds hide nothing from the listing")
        }
    }
}
