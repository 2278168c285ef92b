import Foundation
import Synchronization

/// Activities to send to the followers of a blog: one row a change of a
/// post, queued in the very transaction that stores, edits, trashes,
/// restores or deletes it (so a crash between the commit and the queueing
/// never loses a send), and only when the blog has an accepted follower
/// (a blog without followers pays nothing). A fan-out turns each into one
/// delivery per distinct inbox, with the activity's JSON as rendered then;
/// a worker claims the due deliveries, sends them, and settles them.
///
/// Queueing is off until `queueActivities(true)` (ActivityPub is served).
public protocol ActivityQueue: Sendable {
    /// From now on (or no more) every post stored, edited, trashed,
    /// restored or deleted with a tombstone queues its activity, in the
    /// same transaction, when its author has an accepted follower. A post
    /// taken back (never shown) takes its queued activities and
    /// deliveries with it.
    func queueActivities(_ on: Bool)

    /// Activities waiting for their fan-out, oldest first, at most `limit`.
    func queuedActivities(limit: Int) throws(StorageError) -> [QueuedActivity]

    /// In one transaction: takes `activity` off the queue and makes one
    /// delivery of `body` per delivery inbox of its user's accepted
    /// followers now, due at `date`. A nil body (nothing to send: its post
    /// is gone) only takes it off. An activity fanned out already (by
    /// another instance too) makes nothing: deliveries are unique by
    /// activity and inbox. Returns the deliveries made.
    func fanOut(_ activity: QueuedActivity, body: String?, at date: Date) throws(StorageError) -> Int

    /// One step of a fan-out in chunks, in one transaction: reads the
    /// next chunk of the activity's user's delivery targets (those of
    /// `deliveryTargets` past the point its fan-out has reached, in their
    /// order, at most `rows`), makes a delivery of `body` for each and
    /// records the new point; or, when none is left past them, takes the
    /// activity off the queue. The followers are read in the step's own
    /// transaction, so a follower removed or blocked while a long fan-out
    /// runs gets nothing from the steps after, and one that comes gets
    /// its delivery when it sorts past the point. A fan-out to 10,000
    /// inboxes holds the writer for one chunk at a time, and a crash
    /// between two steps leaves the activity queued with its point: the
    /// next fan-out (after a restart, or another instance's, which waits
    /// for this step's commit) goes on from there, and every inbox gets
    /// one delivery. An activity off the queue already makes nothing.
    func fanOutStep(_ activity: QueuedActivity, body: String, rows: Int, at date: Date) throws(StorageError) -> FanOutStep

    /// Claims at most `limit` deliveries due by `date`, the earliest due
    /// first: each is hidden from every other claim (other instances on
    /// the same database too) until `date + lease`, and its attempts go
    /// up by one (the claim's version). A worker that dies holding a
    /// claim leaves the delivery to be claimed again when the lease ends.
    func claimDeliveries(dueBy date: Date, lease: TimeInterval, limit: Int) throws(StorageError) -> [OutgoingDelivery]

    /// `claimDeliveries`, with no delivery to a host of `skippingHosts`
    /// and at most `perHost` to any other one: the sender's window holds
    /// a bounded number of one host's deliveries, so that a host with
    /// hundreds of deliveries in a row (many followers' own inboxes on a
    /// server that never answers) cannot fill it. The rows looked at are
    /// the first `limit` due (of the hosts not skipped), so a claim may
    /// come back short while more are due: the caller skips the hosts it
    /// now holds enough of and claims again.
    func claimDeliveries(dueBy date: Date, lease: TimeInterval, limit: Int, skippingHosts: Set<String>,
                         perHost: Int) throws(StorageError) -> [OutgoingDelivery]

    /// A batch's results in one write: each delivery done (gone), due
    /// again at a time (with its server's due deliveries, when the server
    /// did not answer: counted as held back), or given up (gone, and
    /// counted). A result for a claim that is no longer the latest (its
    /// lease ran out and another claimed it) changes nothing of its row.
    /// A Block's result, however it went, makes the Undo that waited for
    /// its send due (`BlockNotice.wakesUndo`).
    func settleDeliveries(_ results: [(delivery: OutgoingDelivery, settlement: DeliverySettlement)]) throws(StorageError)

    /// The deliveries queued, in the order they would be claimed, at most
    /// `limit` (for tests and the admin).
    func queuedDeliveries(limit: Int) throws(StorageError) -> [OutgoingDelivery]

    /// What the queue holds and has done, for metrics.
    func deliveryCounts() throws(StorageError) -> DeliveryCounts
}

/// What a queued activity says of its post.
public enum ActivityKind: String, Sendable, CaseIterable {
    case create, update, delete
}

/// A change of a post waiting for its fan-out.
public struct QueuedActivity: Sendable, Equatable, Hashable {
    public var id: Int64
    public var userID: Int64
    public var postID: Int64
    public var kind: ActivityKind
    /// When the change was made (an `Update`'s id carries it).
    public var queuedAt: Date

    public init(id: Int64, userID: Int64, postID: Int64, kind: ActivityKind, queuedAt: Date) {
        self.id = id
        self.userID = userID
        self.postID = postID
        self.kind = kind
        self.queuedAt = queuedAt
    }
}

/// One activity to POST to one inbox.
public struct OutgoingDelivery: Sendable, Equatable, Hashable {
    public var id: Int64
    /// The queued activity it came from.
    public var activityID: Int64
    public var userID: Int64
    public var postID: Int64
    public var inbox: String
    /// The inbox's delivery host key (`ActorHost.deliveryKey`: its
    /// registrable domain, or its IP address): per-host limits. Rows
    /// queued before the key was the registrable domain keep the
    /// authority (host and port) they were made with.
    public var host: String
    /// The activity's JSON, as rendered at the fan-out: every try sends
    /// the same bytes.
    public var body: String
    /// Claims so far, this one included; a settle names the claim by it.
    public var attempts: Int
    /// When it is next due (a claimed one: when its lease runs out).
    public var due: Date
    /// When it was fanned out: giving up counts from here.
    public var createdAt: Date
    /// A post's activity, or the answer to a Follow (then `postID` is 0
    /// and `activityID` negative: see `DeliveryKind`).
    public var kind: DeliveryKind

    public init(id: Int64, activityID: Int64, userID: Int64, postID: Int64, inbox: String, host: String, body: String,
                attempts: Int, due: Date, createdAt: Date, kind: DeliveryKind = .post) {
        self.id = id
        self.activityID = activityID
        self.userID = userID
        self.postID = postID
        self.inbox = inbox
        self.host = host
        self.body = body
        self.attempts = attempts
        self.due = due
        self.createdAt = createdAt
        self.kind = kind
    }
}

/// What became of one claimed delivery.
public enum DeliverySettlement: Sendable, Equatable {
    /// Delivered: gone.
    case done
    /// Failed for now: due again at this time.
    case retry(at: Date)
    /// Failed because its server did not answer (no answer in time, no
    /// connection, 408, 429, 5xx): due again at `at`, and so are the
    /// other deliveries to its server (its host key, then its inbox's
    /// origin: `HostsDown`) due by `now`, the settle's time, at most
    /// `HostsDown.rowsPerHold` of them. A server that does not answer
    /// then leaves the front of the queue with its due deliveries, not
    /// one a try, and claims stop passing them by. Its deliveries due
    /// after `now` (under another claim's lease, or waiting out their own
    /// backoff) stay as they are.
    case hostDown(retryAt: Date, now: Date)
    /// Failed for good (refused, or tried too long): gone, and counted.
    case givenUp
}

/// The delivery queue's figures.
public struct DeliveryCounts: Sendable, Equatable {
    /// Activities waiting for their fan-out.
    public var queuedActivities: Int
    /// Deliveries waiting (due or leased).
    public var queuedDeliveries: Int
    /// Deliveries done since the database was made.
    public var delivered: Int
    /// Deliveries given up since the database was made.
    public var givenUp: Int
    /// Deliveries moved to a later time since the database was made,
    /// not for their own failure but because a try to their server failed
    /// (`DeliverySettlement.hostDown`): how much a server that does not
    /// answer holds back.
    public var heldBack: Int

    public init(queuedActivities: Int, queuedDeliveries: Int, delivered: Int, givenUp: Int, heldBack: Int = 0) {
        self.queuedActivities = queuedActivities
        self.queuedDeliveries = queuedDeliveries
        self.delivered = delivered
        self.givenUp = givenUp
        self.heldBack = heldBack
    }
}

/// Whether a store's post paths queue activities, read in every post's
/// transaction.
public final class ActivityQueueing: Sendable {
    private let on = Atomic<Bool>(false)

    public init() {}

    public func set(_ value: Bool) { on.store(value, ordering: .releasing) }

    public var isOn: Bool { on.load(ordering: .acquiring) }
}
