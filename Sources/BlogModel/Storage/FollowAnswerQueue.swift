import Foundation

/// What a delivery is about: a post's activity (made by the fan-out of a
/// queued `Create`, `Update` or `Delete`), or the answer to one follower's
/// `Follow` (an `Accept` or a `Reject`, queued by itself, to that
/// follower's own inbox).
///
/// An answer shares the delivery queue (and so the worker, its signing,
/// per-host limits, backoff and giving up) but has no post and no queued
/// activity: its row says `kind` `accept` or `reject`, its `post_id` is 0
/// (no post has that id), and its `activity_id` is negative (no queued
/// activity has such an id), made from the blog, the kind and the Follow's
/// id by `answerActivityID`, so the same answer queued twice (a follower's
/// server sending its Follow again) is one delivery, as a post's activity
/// is once per inbox.
///
/// `block` and `unblock` are the same kind of row: a `Block` sent to an
/// actor the blog blocks, and its `Undo` when the block is lifted (see
/// `BlockNoticeQueue`), their `activity_id` made from the Block's id.
public enum DeliveryKind: String, Sendable, CaseIterable {
    case post, accept, reject, block, unblock

    /// The `activity_id` of an answer: minus a 63-bit FNV-1a of the blog,
    /// the kind and the Follow's id (never 0, never positive).
    public static func answerActivityID(userID: Int64, kind: DeliveryKind, followID: String) -> Int64 {
        ownActivityID(userID: userID, kind: kind, about: followID)
    }

    /// The `activity_id` of a delivery that is no post's: minus a 63-bit
    /// FNV-1a of the blog, the kind and what it is about (a Follow's id,
    /// a Block's id).
    public static func ownActivityID(userID: Int64, kind: DeliveryKind, about: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(userID) \(kind.rawValue) \(about)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return -Int64(bitPattern: (hash >> 1) | 1)
    }
}

/// The body of an answer to a follower's Follow, rendered from the
/// follower as stored in the answer's own transaction (its Follow id is
/// the one answered).
public typealias FollowAnswerBody = @Sendable (Follower) -> String

/// Followers accepted, refused or removed together with the answer their
/// server is sent: the change and the queued delivery commit together,
/// so a crash never leaves a follower accepted whose Accept is lost, and
/// the delivery worker sends the answer as it sends posts (signed,
/// retried, given up after days; see `DeliveryKind`).
public protocol FollowAnswerQueue: Sendable {
    /// `addFollower` and, in the same transaction, when the follower is
    /// accepted afterwards (`accepted`, or accepted before: its server
    /// asks again), the `accept` answer to its inbox, due at once. Returns
    /// the follower as kept. `.unknownUser` when there is no such user.
    func addFollower(userID: Int64, actorID: String, inbox: String, sharedInbox: String?, followID: String,
                     accepted: Bool, at date: Date, accept: @escaping FollowAnswerBody) throws(StorageError) -> Follower

    /// Accepts a pending follower and queues `accept` to its inbox in one
    /// transaction; nil (and nothing queued) when there is no such
    /// follower or it is accepted already.
    func acceptFollower(userID: Int64, actorID: String, at date: Date,
                        accept: @escaping FollowAnswerBody) throws(StorageError) -> Follower?

    /// Removes a follower (pending or accepted) and queues `reject` to its
    /// inbox in one transaction; returns it as it was, nil (and nothing
    /// queued) when there was none.
    func refuseFollower(userID: Int64, actorID: String, at date: Date,
                        reject: @escaping FollowAnswerBody) throws(StorageError) -> Follower?

    /// `ActorBlockStorage.block`, and in the same transaction a `reject`
    /// queued to each follower it removes (their servers then end their
    /// side of the follow, as Mastodon does when one of its users blocks
    /// a follower). Returns how many followers and responses went.
    func block(userID: Int64, _ target: BlockTarget, at date: Date,
               reject: @escaping FollowAnswerBody) throws(StorageError) -> (followers: Int, responses: Int)
}

/// A blog's choice to approve its followers by hand (kept with its other
/// settings, in `blog_settings`, but apart from `BlogSettings`: it
/// changes no page).
public protocol FollowerApprovalStorage: Sendable {
    /// Whether follows of `userID`'s blog wait for the author (false when
    /// never set, or no such user).
    func approvesFollowersByHand(userID: Int64) throws(StorageError) -> Bool

    /// Sets it, durable before it returns; `.unknownUser` when there is no
    /// such user. The blog's other settings stay as they are.
    func setApprovesFollowersByHand(_ on: Bool, userID: Int64, at date: Date) throws(StorageError)
}
