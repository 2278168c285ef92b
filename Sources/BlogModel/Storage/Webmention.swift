import Foundation

/// A Webmention another site sent about one of our posts (W3C
/// Webmention): where from (`source`), which post (`target`), whether it
/// is verified yet, whether the author approved it, and what the source's
/// h-entry said. Text only: nothing from a source is ever kept as markup.
public struct Webmention: Sendable, Equatable {
    /// What the source is to the post, from its h-entry's properties.
    public enum Kind: String, Sendable, CaseIterable {
        case reply, like, repost, mention
    }

    /// Waiting for (another) verification, or verified at least once.
    public enum Status: String, Sendable {
        case queued, verified
    }

    /// How it came: a Webmention, or an activity from the fediverse (a
    /// reply, like or announce; see `FediverseResponseStorage`).
    public enum Origin: String, Sendable {
        case webmention, activitypub
    }

    public var id: Int64
    /// The post's author: whose approval it waits for.
    public var userID: Int64
    public var postID: Int64
    public var source: String
    public var target: String
    public var status: Status
    public var approved: Bool
    public var receivedAt: Date
    /// Failed verification attempts since it was (re)queued.
    public var attempts: Int
    /// When a queued one is tried (again).
    public var nextAttemptAt: Date
    /// The last successful verification; nil until there is one.
    public var verifiedAt: Date?
    public var content: WebmentionContent
    public var origin: Origin
    /// The actor that made it (`.activitypub` only).
    public var actorID: String?

    public init(id: Int64, userID: Int64, postID: Int64, source: String, target: String, status: Status,
                approved: Bool, receivedAt: Date, attempts: Int, nextAttemptAt: Date, verifiedAt: Date?,
                content: WebmentionContent, origin: Origin = .webmention, actorID: String? = nil) {
        self.id = id
        self.userID = userID
        self.postID = postID
        self.source = source
        self.target = target
        self.status = status
        self.approved = approved
        self.receivedAt = receivedAt
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.verifiedAt = verifiedAt
        self.content = content
        self.origin = origin
        self.actorID = actorID
    }

    /// Shown under the post: approved, and verified at least once (a
    /// re-sent one keeps showing what was verified until it is again).
    public var isShown: Bool { approved && verifiedAt != nil }
}

/// What a verified source says: from its h-entry, as plain text.
public struct WebmentionContent: Sendable, Equatable {
    public var kind: Webmention.Kind
    public var authorName: String
    public var authorURL: String
    public var authorPhoto: String
    /// The entry's name (`p-name`), when it has one apart from its content.
    public var title: String
    /// The entry's content as text (`e-content`'s text, never its markup).
    public var text: String

    public init(kind: Webmention.Kind = .mention, authorName: String = "", authorURL: String = "",
                authorPhoto: String = "", title: String = "", text: String = "") {
        self.kind = kind
        self.authorName = authorName
        self.authorURL = authorURL
        self.authorPhoto = authorPhoto
        self.title = title
        self.text = text
    }

    /// Longest text kept of any field, in characters: a source cannot fill
    /// the database or a page.
    public static let fieldLimit = 2_000
    public static let textLimit = 10_000

    /// The same content with every field cut to its limit.
    public var bounded: WebmentionContent {
        WebmentionContent(kind: kind, authorName: String(authorName.prefix(Self.fieldLimit)),
                          authorURL: String(authorURL.prefix(Self.fieldLimit)),
                          authorPhoto: String(authorPhoto.prefix(Self.fieldLimit)),
                          title: String(title.prefix(Self.fieldLimit)), text: String(text.prefix(Self.textLimit)))
    }
}
