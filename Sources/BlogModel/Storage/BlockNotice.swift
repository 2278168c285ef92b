/// The rule both stores follow for the `Undo` of a `Block` (the block
/// notices of `BlockNoticeQueue`).
public enum BlockNotice {
    /// When an unblock's `Undo` is due, in ms since 1970: at once, unless
    /// the `Block` it takes back had been tried and was still queued with
    /// a later due time (`blockDue`), that is, under a claim's lease (being
    /// sent at that moment) or waiting to be tried again; then no earlier
    /// than that, so the Undo can never reach the remote before a Block
    /// that is on its way (a remote ignores an Undo of what it has not
    /// got, then applies the Block for good). A lease ends at most
    /// `DeliveryClaim.lease` from now; a due time past that is a retry's,
    /// of a Block that is now off the queue and never sent again: the Undo
    /// waits no longer than a lease. nil: at once.
    ///
    /// This is the bound for a sender that died holding the Block. A live
    /// one settles it when its send is over, and the settle makes the
    /// waiting Undo due when it was queued (`wakesUndo`): a lease is half
    /// an hour, a send seconds.
    ///
    ///     BlockNotice.undoDue(blockDue: 1_060_000, at: 1_000_000) // 1_060_000
    public static func undoDue(blockDue: Int64?, at now: Int64) -> Int64? {
        guard let blockDue, blockDue > now else { return nil }
        return min(blockDue, now + Int64(DeliveryClaim.lease * 1000))
    }

    /// What the Undo of the Block whose `activity_id` is `block` is queued
    /// about: its own `activity_id` is made from its Block's, so that the
    /// settle of the Block finds it (`undoActivityID`).
    public static func undoAbout(block: Int64) -> String { "undo \(block)" }

    /// The `activity_id` of the Undo of the Block whose `activity_id` is
    /// `block`.
    ///
    ///     let undo = BlockNotice.undoActivityID(userID: 1, block: delivery.activityID)
    public static func undoActivityID(userID: Int64, block: Int64) -> Int64 {
        DeliveryKind.ownActivityID(userID: userID, kind: .unblock, about: undoAbout(block: block))
    }

    /// Whether settling `delivery` (however it went) makes its Undo, if one
    /// waits, due: a Block's send is over then, whether or not its row is
    /// still queued (an unblock takes it off while it is sent). Only an
    /// Undo never tried is made due, one claimed already keeps its lease.
    public static func wakesUndo(_ delivery: OutgoingDelivery) -> Bool { delivery.kind == .block }
}
