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
    ///     BlockNotice.undoDue(blockDue: 1_060_000, at: 1_000_000) // 1_060_000
    public static func undoDue(blockDue: Int64?, at now: Int64) -> Int64? {
        guard let blockDue, blockDue > now else { return nil }
        return min(blockDue, now + Int64(DeliveryClaim.lease * 1000))
    }
}
