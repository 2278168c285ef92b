import Foundation

/// What the inbox changes, and what it must know of the blogs to decide:
/// the storage of followers, blocks and responses behind one narrow door,
/// so that the inbox's rules are tested apart from any backend. Every
/// change is durable before it returns.
public protocol InboxActions: Sendable {
    /// Blog `name` (its user not suspended); nil when there is none.
    func blog(named name: String) throws(InboxActionError) -> InboxBlog?
    /// Whether `postID` is a post of `userID` (not trashed).
    func hasPost(_ postID: Int64, ofUserID userID: Int64) throws(InboxActionError) -> Bool
    /// Whether the blog refuses `actor`: the actor itself, or its host, blocked.
    func isBlocked(actor: String, ofUserID userID: Int64) throws(InboxActionError) -> Bool

    /// Keeps `follower` (again: its inboxes and Follow updated), accepted
    /// or waiting for the author.
    func addFollower(_ follower: InboxFollower, ofUserID userID: Int64, accepted: Bool) throws(InboxActionError)
    /// Queues the `Accept` of `follower`'s Follow to its inbox.
    func queueAccept(of follower: InboxFollower, byUserID userID: Int64) throws(InboxActionError)
    /// Removes `actor` as a follower of `userID` (of every blog when nil)
    /// when `followID` is nil or its Follow's id.
    func removeFollower(actor: String, followID: String?, ofUserID userID: Int64?) throws(InboxActionError)

    /// Keeps a response (waiting for approval as a Webmention does); the
    /// same `activityID` by the same actor again replaces it.
    func addResponse(_ response: InboxResponse) throws(InboxActionError)
    /// Replaces the text of `actor`'s reply `objectID` wherever it is kept
    /// (an approved one stays approved and its page is rewritten).
    func updateResponse(objectID: String, actor: String, content: InboxResponse.Content) throws(InboxActionError)
    /// Removes `actor`'s responses whose object or activity is `id`.
    func removeResponses(actor: String, id: String) throws(InboxActionError)
    /// Removes `actor`'s likes or reposts of the post (when its Undo
    /// names no id that was kept).
    func removeReactions(actor: String, kind: InboxResponse.Kind, postID: Int64, ofUserID userID: Int64)
        throws(InboxActionError)

    /// Removes `actor` everywhere: as a follower, and its responses.
    func removeActor(_ actor: String) throws(InboxActionError)
}

/// A blog as the inbox sees it.
public struct InboxBlog: Sendable, Equatable {
    public var userID: Int64
    public var name: String
    /// Follows are accepted at once (the blog's setting, on by default);
    /// else they wait for the author.
    public var acceptsFollowers: Bool

    public init(userID: Int64, name: String, acceptsFollowers: Bool = true) {
        self.userID = userID
        self.name = name
        self.acceptsFollowers = acceptsFollowers
    }
}

/// A follower, from its Follow and its actor document.
public struct InboxFollower: Sendable, Equatable {
    public var actor: String
    public var inbox: String
    public var sharedInbox: String?
    /// The Follow's id, which its Undo and our Accept name.
    public var followID: String
    /// The Follow as our `Accept` embeds it (`id`, `type`, `actor`, `object`).
    public var followJSON: String

    public init(actor: String, inbox: String, sharedInbox: String?, followID: String, followJSON: String) {
        self.actor = actor
        self.inbox = inbox
        self.sharedInbox = sharedInbox
        self.followID = followID
        self.followJSON = followJSON
    }
}

/// A reply, like or repost of one of our posts from the fediverse.
public struct InboxResponse: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case reply, like, repost
    }

    /// What is shown: who, what they wrote, as text.
    public struct Content: Sendable, Equatable {
        public var authorName: String
        public var authorURL: String
        public var title: String
        public var text: String
        /// Where the response can be read (the Note's `url`, else its id).
        public var source: String

        public init(authorName: String, authorURL: String, title: String = "", text: String = "", source: String) {
            self.authorName = authorName
            self.authorURL = authorURL
            self.title = title
            self.text = text
            self.source = source
        }
    }

    public var userID: Int64
    public var postID: Int64
    public var kind: Kind
    public var actor: String
    /// The Like's or Announce's id; a reply's Note id (what Update and
    /// Delete name).
    public var activityID: String
    public var content: Content

    public init(userID: Int64, postID: Int64, kind: Kind, actor: String, activityID: String, content: Content) {
        self.userID = userID
        self.postID = postID
        self.kind = kind
        self.actor = actor
        self.activityID = activityID
        self.content = content
    }
}

/// Why the inbox could not do what an activity asked (`503`, with the
/// underlying error kept).
public enum InboxActionError: Error, Sendable {
    /// The blog already has as many responses waiting as it keeps.
    case tooManyWaiting
    case storage(any Error)
}
