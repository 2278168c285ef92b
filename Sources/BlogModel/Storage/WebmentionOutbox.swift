import Foundation
import Synchronization

/// Webmentions waiting to be sent (W3C Webmention, section 3.1): one row a
/// post and a URL its text links to, queued in the very transaction that
/// stores, edits, trashes, restores or deletes the post, so that a crash
/// between the commit and the queueing never loses a send. A sender claims
/// the rows that are due, sends them, and finishes or retries each.
///
/// Queueing is off until `queueWebmentions(with:)` gives the store the rule
/// of what is a link (the pages' rule, which the storage layer does not
/// own); a store without it queues nothing.
public protocol WebmentionOutbox: Sendable {
    /// From now on every post stored, edited (its old and new links),
    /// trashed, restored or deleted with a tombstone queues a Webmention
    /// for each URL `links` finds in its text, in the same transaction. A
    /// post taken back (no tombstone: it was never shown) takes its queued
    /// rows with it. A URL queued again for the same post is due at once
    /// with its attempts reset.
    func queueWebmentions(with links: MentionLinks)

    /// Claims at most `limit` rows due by `date`, oldest first: each is
    /// hidden from every other claim (other instances on the same
    /// database too) until `date + lease`, and its attempts go up by one.
    /// A sender that dies holding a claim leaves the row to be claimed
    /// again when the lease runs out.
    func claimWebmentions(dueBy date: Date, lease: TimeInterval, limit: Int) throws(StorageError) -> [OutgoingWebmention]

    /// Sent (or given up): the row goes, unless it was queued again since
    /// the claim (an edit meanwhile), which wants a send of its own.
    func finishWebmention(_ mention: OutgoingWebmention) throws(StorageError)

    /// Failed for now: due again at `date` (unless queued again since the
    /// claim, which makes it due at once anyway).
    func retryWebmention(_ mention: OutgoingWebmention, at date: Date) throws(StorageError)

    /// The rows queued, in the order they would be claimed; at most `limit`
    /// (for tests and the admin).
    func queuedWebmentions(limit: Int) throws(StorageError) -> [OutgoingWebmention]

    /// A batch's results at once: each row finished (`retryAt` nil) or
    /// due again at `retryAt`, as `finishWebmention` and
    /// `retryWebmention` do. A backend writes them in one transaction, so
    /// a batch costs the disk one commit, not one a row.
    func settleWebmentions(_ results: [(mention: OutgoingWebmention, retryAt: Date?)]) throws(StorageError)
}

extension WebmentionOutbox {
    public func settleWebmentions(_ results: [(mention: OutgoingWebmention, retryAt: Date?)]) throws(StorageError) {
        for (mention, retryAt) in results {
            if let retryAt { try retryWebmention(mention, at: retryAt) } else { try finishWebmention(mention) }
        }
    }
}

/// One queued Webmention: `target` is to hear that post `postID` of user
/// `userID` (its page, the source) links to it, or did.
public struct OutgoingWebmention: Sendable, Equatable, Hashable {
    public var id: Int64
    public var postID: Int64
    public var userID: Int64
    public var target: String
    /// Claims so far, this one included.
    public var attempts: Int
    /// Goes up each time the row is queued again; a claim's `finish` and
    /// `retry` change only the version they claimed.
    public var version: Int64
    /// When it is next due (a claimed row: when its lease runs out).
    public var due: Date

    public init(id: Int64, postID: Int64, userID: Int64, target: String, attempts: Int, version: Int64, due: Date) {
        self.id = id
        self.postID = postID
        self.userID = userID
        self.target = target
        self.attempts = attempts
        self.version = version
        self.due = due
    }
}

/// Which URLs of a post's text get a Webmention: the pages' rule of what
/// is a link (`LinkedText.urls(in:)`), handed to the store, bounded so that
/// no post queues more than `limit` targets nor a URL longer than
/// `maxLength` bytes.
public struct MentionLinks: Sendable {
    /// Targets one change of one post queues at most.
    public static let defaultLimit = 100
    /// Longer URLs are skipped: no receiver needs them, and every row
    /// stays small.
    public static let defaultMaxLength = 2048

    public let urls: @Sendable (String) -> [String]
    public let limit: Int
    public let maxLength: Int

    public init(limit: Int = MentionLinks.defaultLimit, maxLength: Int = MentionLinks.defaultMaxLength,
                urls: @escaping @Sendable (String) -> [String]) {
        self.urls = urls
        self.limit = limit
        self.maxLength = maxLength
    }

    /// The distinct URLs of `texts`, in order (an edit's old text first,
    /// so that a link it removed still gets its mention), within the bounds.
    public func targets(_ texts: [String]) -> [String] {
        var seen: Set<String> = []
        var found: [String] = []
        for text in texts {
            for url in urls(text) where url.utf8.count <= maxLength && found.count < limit {
                if seen.insert(url).inserted { found.append(url) }
            }
        }
        return found
    }
}

/// A store's `MentionLinks`, set once the server knows it (nil: queue
/// nothing), read in every post's transaction.
public final class MentionQueueing: Sendable {
    private let links = Mutex<MentionLinks?>(nil)

    public init() {}

    public func set(_ rule: MentionLinks?) { links.withLock { $0 = rule } }

    /// The targets `texts` queue; none while queueing is off.
    public func targets(_ texts: String...) -> [String] {
        guard let rule = links.withLock({ $0 }) else { return [] }
        return rule.targets(texts)
    }
}
