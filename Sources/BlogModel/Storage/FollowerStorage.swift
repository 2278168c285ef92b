import Foundation

/// A remote actor that follows one of our blogs.
public struct Follower: Sendable, Equatable {
    public enum State: String, Sendable, CaseIterable {
        /// Asked to follow; waits for the author (or the automatic accept).
        case pending
        /// Accepted: gets the blog's posts.
        case accepted
    }

    public var id: Int64
    /// The followed blog's user.
    public var userID: Int64
    /// The follower's actor id (a URL).
    public var actorID: String
    public var inbox: String
    /// Its server's shared inbox, when it names one: deliveries go there.
    public var sharedInbox: String?
    /// The actor's host (lower case): what domain blocks match.
    public var host: String
    /// The id of the `Follow` activity (what an `Accept` names).
    public var followID: String
    public var state: State
    public var createdAt: Date

    public init(id: Int64, userID: Int64, actorID: String, inbox: String, sharedInbox: String?, host: String,
                followID: String, state: State, createdAt: Date) {
        self.id = id
        self.userID = userID
        self.actorID = actorID
        self.inbox = inbox
        self.sharedInbox = sharedInbox
        self.host = host
        self.followID = followID
        self.state = state
        self.createdAt = createdAt
    }

    /// Where deliveries to it go: the shared inbox when it has one.
    public var deliveryInbox: String { sharedInbox ?? inbox }
}

/// One inbox a blog's activities go to, and its delivery host key
/// (`ActorHost.deliveryKey`) that deliveries are grouped by.
public struct DeliveryTarget: Sendable, Equatable, Hashable {
    public var inbox: String
    public var host: String

    public init(inbox: String, host: String) {
        self.inbox = inbox
        self.host = host
    }
}

/// The blogs' followers from the fediverse.
public protocol FollowerStorage: Sendable {
    /// Adds `actorID` as a follower of `userID` (pending, or accepted when
    /// `accepted`), or, when it follows already, updates its inboxes and
    /// Follow id; an accepted follower stays accepted. `.unknownUser` when
    /// there is no such user. Blocks are the caller's to check first.
    func addFollower(userID: Int64, actorID: String, inbox: String, sharedInbox: String?, followID: String,
                     accepted: Bool, at date: Date) throws(StorageError) -> Follower

    /// Accepts a pending follower; nil when there is no such follower.
    func acceptFollower(userID: Int64, actorID: String) throws(StorageError) -> Follower?

    /// The follower, as it is; nil when `actorID` does not follow `userID`.
    func follower(userID: Int64, actorID: String) throws(StorageError) -> Follower?

    /// Removes one follower (an `Undo` of its Follow, or the author's
    /// choice) and returns it as it was; nil when there was none.
    func removeFollower(userID: Int64, actorID: String) throws(StorageError) -> Follower?

    /// Removes `actorID` from every blog's followers and every response it
    /// made (a `Delete` of the actor), in one transaction; returns how many
    /// followers and responses went.
    func forgetActor(_ actorID: String) throws(StorageError) -> (followers: Int, responses: Int)

    /// The user's followers (in `state`, or all when nil), newest first,
    /// from `offset`, at most `limit`.
    func followers(ofUserID userID: Int64, state: Follower.State?, offset: Int,
                   limit: Int) throws(StorageError) -> [Follower]

    /// How many followers the user has (in `state`, or all when nil).
    func followerCount(ofUserID userID: Int64, state: Follower.State?) throws(StorageError) -> Int

    /// Where the user's activities go: the distinct delivery inboxes (a
    /// shared inbox once, however many followers share it) of accepted
    /// followers, in order of their URL.
    func deliveryTargets(ofUserID userID: Int64) throws(StorageError) -> [DeliveryTarget]

    /// Removes the user's followers whose delivery inbox is `inbox` (the
    /// inbox answered 410 Gone); returns how many went.
    func removeFollowers(ofUserID userID: Int64, deliveryInbox inbox: String) throws(StorageError) -> Int
}
