import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// A `Block` queued to an actor a blog blocks, and its `Undo` when the
/// block is lifted, the same on every backend: in the block's own
/// commit, to the inbox of the follower it removed, once; nothing for an
/// actor with no inbox known or for a domain.
@Suite("BlogStorage conformance: Block and its Undo, queued with the block")
struct BlockNoticeConformanceTests {
    static let bob = "https://social.example/users/bob"

    /// The deliveries that are no post's: kind, inbox, body.
    private func own(_ store: any BlogStorage) throws -> [String] {
        try store.queuedDeliveries(limit: 100).filter { $0.kind != .post }
            .map { "\($0.kind.rawValue) \($0.inbox) \($0.body)" }
    }

    @Test(arguments: Backend.available) func aBlockedFollowerIsSentABlockAndItsUndo(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            _ = try store.addFollower(userID: alice.id, actorID: Self.bob, inbox: Self.bob + "/inbox",
                                      sharedInbox: "https://social.example/inbox", followID: "f1", accepted: true, at: t0)
            let notice: BlockNoticeBody = { "block at \(Int64($0.timeIntervalSince1970))" }
            let undo: BlockNoticeBody = { "undo of \(Int64($0.timeIntervalSince1970))" }
            let removed = try store.block(userID: alice.id, .actor(Self.bob), at: t0, reject: { "reject \($0.followID)" },
                                          notice: notice)
            #expect(removed.followers == 1)
            let inbox = Self.bob + "/inbox"
            #expect(try own(store).sorted() == ["block \(inbox) block at 1800000000", "reject \(inbox) reject f1"],
                    "to the actor's own inbox, not its server's shared one")
            let later = t0.addingTimeInterval(60)
            _ = try store.block(userID: alice.id, .actor(Self.bob), at: later, reject: { _ in "x" }, notice: notice)
            #expect(try own(store).count == 2, "blocked again: no follower, nothing more")
            #expect(try store.blocks(ofUserID: alice.id).map(\.createdAt) == [t0])

            // The Block tried once (it may have arrived): the Undo follows.
            let claimed = try store.claimDeliveries(dueBy: later, lease: 60, limit: 10)
            #expect(claimed.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.block, .reject])
            #expect(try store.unblock(userID: alice.id, .actor(Self.bob), at: later, undo: undo))
            #expect(try own(store).sorted() == ["reject \(inbox) reject f1", "unblock \(inbox) undo of 1800000000"],
                    "the Undo names the Block sent; the Block, taken off the queue, cannot come after it")
            // That Block may be on its way at this moment: the Undo waits
            // out its claim's lease.
            let undoRow = try #require(try store.queuedDeliveries(limit: 100).first { $0.kind == .unblock })
            #expect(undoRow.due == later.addingTimeInterval(60))
            #expect(try store.claimDeliveries(dueBy: later.addingTimeInterval(59), lease: 60, limit: 10).isEmpty)
            // Its sender settles it, its send over: the Undo is due when it
            // was queued, not when the lease would have ended.
            let block = try #require(claimed.first { $0.kind == .block })
            try store.settleDeliveries([(delivery: block, settlement: .done)])
            #expect(try store.queuedDeliveries(limit: 100).first { $0.kind == .unblock }?.due == later)
            #expect(try store.claimDeliveries(dueBy: later, lease: 60, limit: 10).map(\.kind) == [.unblock],
                    "the Reject is still under its lease")
            try store.settleDeliveries([(delivery: block, settlement: .retry(at: later))])
            #expect(try store.queuedDeliveries(limit: 100).first { $0.kind == .unblock }?.due == later.addingTimeInterval(60),
                    "an Undo claimed already keeps its lease")
            #expect(try store.unblock(userID: alice.id, .actor(Self.bob), at: later, undo: undo) == false)
            #expect(try own(store).count == 2)
            #expect(try store.isBlocked(userID: alice.id, actorID: Self.bob) == false)
        }
    }

    /// An Undo claimed before its Block would be ignored by the remote,
    /// which would then apply the Block for good: a Block never sent is
    /// taken off the queue, and nothing is sent at all.
    @Test(arguments: Backend.available) func anUnblockBeforeTheBlockWentOutSendsNeither(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            _ = try store.addFollower(userID: alice.id, actorID: Self.bob, inbox: Self.bob + "/inbox", sharedInbox: nil,
                                      followID: "f1", accepted: true, at: t0)
            _ = try store.block(userID: alice.id, .actor(Self.bob), at: t0, reject: { _ in "reject" },
                                notice: { _ in "block" })
            #expect(try store.unblock(userID: alice.id, .actor(Self.bob), at: t0, undo: { _ in "undo" }))
            #expect(try own(store) == ["reject \(Self.bob)/inbox reject"], "no Block, no Undo")

            // Followed and blocked again, its Block delivered (gone from the
            // queue): the Undo goes.
            let later = t0.addingTimeInterval(1)
            _ = try store.addFollower(userID: alice.id, actorID: Self.bob, inbox: Self.bob + "/inbox", sharedInbox: nil,
                                      followID: "f2", accepted: true, at: later)
            _ = try store.block(userID: alice.id, .actor(Self.bob), at: later, reject: { _ in "reject" },
                                notice: { _ in "block 2" })
            let claimed = try store.claimDeliveries(dueBy: later, lease: 60, limit: 10)
            #expect(claimed.contains { $0.kind == .block })
            try store.settleDeliveries(claimed.map { (delivery: $0, settlement: DeliverySettlement.done) })
            #expect(try own(store).isEmpty)
            #expect(try store.unblock(userID: alice.id, .actor(Self.bob), at: later, undo: { _ in "undo 2" }))
            #expect(try own(store) == ["unblock \(Self.bob)/inbox undo 2"])
            #expect(try store.queuedDeliveries(limit: 100).first { $0.kind == .unblock }?.due == later,
                    "no Block on its way: the Undo is due at once")

            // Blocked again; the Block tried and failed, due again in 6 hours:
            // off the queue, it is never sent, so the Undo waits no longer
            // than a claim's lease could have run.
            let third = later.addingTimeInterval(1)
            _ = try store.addFollower(userID: alice.id, actorID: Self.bob, inbox: Self.bob + "/inbox", sharedInbox: nil,
                                      followID: "f3", accepted: true, at: third)
            _ = try store.block(userID: alice.id, .actor(Self.bob), at: third, reject: { _ in "reject" },
                                notice: { _ in "block 3" })
            let tried = try store.claimDeliveries(dueBy: third, lease: 60, limit: 10).filter { $0.kind == .block }
            try store.settleDeliveries(tried.map { (delivery: $0, settlement: DeliverySettlement.retry(at: third + 6 * 3600)) })
            #expect(try store.unblock(userID: alice.id, .actor(Self.bob), at: third, undo: { _ in "undo 3" }))
            #expect(try store.queuedDeliveries(limit: 100).last { $0.kind == .unblock }?.due
                    == third.addingTimeInterval(DeliveryClaim.lease))
        }
    }

    @Test(arguments: Backend.available) func anActorWithNoInboxKnownOrADomainIsSentNothing(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let carol = "https://other.example/users/carol"
            _ = try store.addFollower(userID: alice.id, actorID: carol, inbox: carol + "/inbox", sharedInbox: nil,
                                      followID: "f2", accepted: false, at: t0)
            let notice: BlockNoticeBody = { _ in "block" }
            _ = try store.block(userID: alice.id, .actor(Self.bob), at: t0, reject: { _ in "reject" }, notice: notice)
            #expect(try own(store).isEmpty, "bob never followed: no inbox known")
            #expect(try store.unblock(userID: alice.id, .actor(Self.bob), at: t0, undo: { _ in "undo" }))
            #expect(try own(store).isEmpty)

            let removed = try store.block(userID: alice.id, .domain("other.example"), at: t0, reject: { _ in "reject" },
                                          notice: notice)
            #expect(removed.followers == 1)
            #expect(try own(store) == ["reject \(carol)/inbox reject"], "a domain block: its Rejects only")
            #expect(try store.unblock(userID: alice.id, .domain("other.example"), at: t0, undo: { _ in "undo" }))
            #expect(try own(store).count == 1)
        }
    }
}
