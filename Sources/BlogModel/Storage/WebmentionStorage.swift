import Foundation

/// Received Webmentions: queued when they arrive, verified in the
/// background, approved by the post's author, shown under the post. One
/// row per post and source: a source that sends again is queued again.
/// A Webmention goes with its post and its user.
public protocol WebmentionStorage: Sendable {
    /// Queues a Webmention of `source` for post `postID` (of `userID`),
    /// durable before it returns. The same post and source again: queued
    /// again, due now, attempts reset; its approval and verified content
    /// stay until the next verification says otherwise.
    func queueWebmention(userID: Int64, postID: Int64, source: String, target: String,
                         at date: Date) throws(StorageError) -> Webmention

    /// Queued Webmentions due by `date`, the earliest due first, at most `limit`.
    func dueWebmentions(at date: Date, limit: Int) throws(StorageError) -> [Webmention]

    /// Records a successful verification: verified now, with `content`.
    /// Nil when the Webmention is gone.
    func storeVerification(id: Int64, content: WebmentionContent, at date: Date) throws(StorageError) -> Webmention?

    /// Records a failed attempt that may succeed later: tried again at `retryAt`.
    func deferVerification(id: Int64, attempts: Int, retryAt: Date) throws(StorageError)

    /// Approves Webmention `id` of `userID`'s post (verified or not: an
    /// unverified one shows once verified). Nil when the user has no such one.
    func approveWebmention(id: Int64, ofUserID userID: Int64?) throws(StorageError) -> Webmention?

    /// Deletes Webmention `id` (of `userID`'s post, when given) and returns
    /// it as it was; nil when there is none.
    func deleteWebmention(id: Int64, ofUserID userID: Int64?) throws(StorageError) -> Webmention?

    func webmention(id: Int64) throws(StorageError) -> Webmention?

    /// Webmentions of `userID`'s posts (everyone's when nil), newest first:
    /// approved or not when `approved` is nil, at most `limit`.
    func webmentions(ofUserID userID: Int64?, approved: Bool?, limit: Int) throws(StorageError) -> [Webmention]

    /// The Webmentions shown under post `postID` (approved and verified),
    /// newest first, from `offset`, at most `limit`.
    func shownWebmentions(postID: Int64, offset: Int, limit: Int) throws(StorageError) -> [Webmention]

    /// How many are shown under post `postID`, by kind.
    func shownWebmentionCounts(postID: Int64) throws(StorageError) -> [Webmention.Kind: Int]

    /// How many of the user's Webmentions wait for approval.
    func unapprovedWebmentionCount(ofUserID userID: Int64) throws(StorageError) -> Int

    /// The user's posts that have any Webmention shown.
    func postIDsWithShownWebmentions(ofUserID userID: Int64) throws(StorageError) -> Set<Int64>
}
