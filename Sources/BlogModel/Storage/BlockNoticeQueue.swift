import Foundation

/// The body of a `Block` sent to a blocked actor, or of its `Undo`,
/// rendered from when the block was made (the Block's id carries it, so
/// a later block of the same actor is another Block, and its Undo names
/// the very Block that was sent).
public typealias BlockNoticeBody = @Sendable (_ blockedAt: Date) -> String

/// A `Block` sent to an actor a blog blocks, and an `Undo` of it when the
/// block is lifted, queued in the block's own transaction as a delivery
/// (`DeliveryKind.block`, `.unblock`) to the actor's own inbox: Mastodon
/// sends one, and its server reads it as the end of the follow both ways
/// (and the blocked account's follows refused until the `Undo`). Only an
/// actor the blog knows an inbox of (one that followed it, accepted or
/// waiting) is sent one; a domain block sends nothing, as on Mastodon.
public protocol BlockNoticeQueue: Sendable {
    /// `FollowAnswerQueue.block` and, when `target` is an actor that
    /// followed the blog, in the same transaction, `notice` (its `Block`)
    /// queued to the actor's inbox, which the block keeps for its `Undo`.
    func block(userID: Int64, _ target: BlockTarget, at date: Date, reject: @escaping FollowAnswerBody,
               notice: @escaping BlockNoticeBody) throws(StorageError) -> (followers: Int, responses: Int)

    /// Lifts a block and, when a `Block` was sent for it, queues `undo`
    /// to the same inbox in the same transaction; false (nothing queued)
    /// when there was no such block.
    func unblock(userID: Int64, _ target: BlockTarget, at date: Date,
                 undo: @escaping BlockNoticeBody) throws(StorageError) -> Bool
}
