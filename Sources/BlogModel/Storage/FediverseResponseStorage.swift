import Foundation

/// A reply, like or announce from the fediverse, kept as a received
/// Webmention is (`Webmention.origin` `.activitypub`): approved, counted
/// and shown the same way. Its `source` is the remote object's id (a
/// reply's Note) or the activity's (a Like, an Announce): what a later
/// `Update`, `Delete` or `Undo` names.
public struct FediverseResponse: Sendable, Equatable {
    public var userID: Int64
    public var postID: Int64
    public var actorID: String
    public var source: String
    /// Our post's URL, as a Webmention's target.
    public var target: String
    public var content: WebmentionContent
    /// Approved from the start (the inbox's choice for likes and
    /// announces); an update keeps what the author chose.
    public var approved: Bool

    public init(userID: Int64, postID: Int64, actorID: String, source: String, target: String,
                content: WebmentionContent, approved: Bool = false) {
        self.userID = userID
        self.postID = postID
        self.actorID = actorID
        self.source = source
        self.target = target
        self.content = content
        self.approved = approved
    }
}

/// Responses from the fediverse, in the received Webmentions' table.
public protocol FediverseResponseStorage: Sendable {
    /// Adds a response, verified (its activity was signed) and approved or
    /// not as `response.approved` says; the same post and source again
    /// updates its content and keeps its approval. Nil when that source
    /// is another actor's (nothing changes). `.unknownUser` when the post
    /// is gone.
    func storeFediverseResponse(_ response: FediverseResponse, at date: Date) throws(StorageError) -> Webmention?

    /// Removes the responses whose source is `source` (an object or
    /// activity id) made by `actorID` (of `userID`'s posts, when given);
    /// returns them as they were.
    func removeFediverseResponses(source: String, actorID: String,
                                  ofUserID userID: Int64?) throws(StorageError) -> [Webmention]

    /// Removes every response `actorID` made (to `userID`'s posts, when
    /// given); returns how many went.
    func removeFediverseResponses(ofActorID actorID: String, userID: Int64?) throws(StorageError) -> Int

    /// The responses whose source is `source`, on any post.
    func fediverseResponses(source: String) throws(StorageError) -> [Webmention]
}
