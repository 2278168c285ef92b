import Synchronization

/// Closes the gap between a post change's commit and its pages: the
/// outbox rows a change queues are committed with it, before its pages
/// are written, and a receiver that fetched our page in between would
/// not find the link (or, for a deletion, would find it still there).
/// While a change of a user's posts is between the two, this process's
/// claims (`claimWebmentions`) leave that user's rows alone; the service
/// holds the user before the change and releases it once the pages show
/// it, then wakes the sender.
///
/// The holds are in memory, for this process's own sender: a crash
/// between commit and page write loses them, and the start-up page
/// check, which runs before the sender starts, writes the page first.
public protocol WebmentionHolds: Sendable {
    /// A change of `userID`'s posts is about to commit: its queued rows
    /// wait until `releaseWebmentions(ofUserID:)` is called as often.
    func holdWebmentions(ofUserID userID: Int64)

    /// The pages show that change now.
    func releaseWebmentions(ofUserID userID: Int64)
}

/// The users held (`WebmentionHolds`), with how many changes each: the
/// stores keep one and leave those users' rows out of every claim.
public final class HeldMentions: Sendable {
    private let held = Mutex<[Int64: Int]>([:])

    public init() {}

    public func hold(_ userID: Int64) { held.withLock { $0[userID, default: 0] += 1 } }

    public func release(_ userID: Int64) {
        held.withLock { held in
            let left = held[userID, default: 0] - 1
            held[userID] = left > 0 ? left : nil
        }
    }

    /// The users whose rows no claim may take now, in order.
    public var userIDs: [Int64] { held.withLock { Array($0.keys) }.sorted() }
}
