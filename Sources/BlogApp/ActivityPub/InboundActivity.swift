import Foundation

/// One activity posted to an inbox, as far as blogd acts on it: the
/// activity's own `id` and `actor` (always the actor's id, an http(s)
/// URL), and what it is about. Made by `InboundActivity.parse` from the
/// body; everything the inbox does not act on is `.other` (answered
/// `202` and dropped).
public enum InboundActivity: Sendable, Equatable {
    /// `actor` asks to follow `object` (one of our actors, or not).
    case follow(id: String, actor: String, object: String)
    /// `actor` stops following: the Follow as embedded (its id, and whom
    /// it followed), or only its id.
    case undoFollow(id: String, actor: String, followID: String?, object: String?)
    /// A new Note (or Article, Page, ...) by `actor`.
    case create(id: String, actor: String, note: InboundNote)
    /// A Note changed.
    case update(id: String, actor: String, note: InboundNote)
    /// `object` (a Note's id, or a Tombstone's) is gone.
    case delete(id: String, actor: String, object: String)
    /// The actor itself is gone (a `Delete` whose object is the actor).
    case deleteActor(id: String, actor: String)
    /// A `Like` (`.like`) or `Announce` (`.announce`) of `object`.
    case reaction(Reaction, id: String, actor: String, object: String)
    /// Undo of a Like or Announce: embedded (its id and object), or only its id.
    case undoReaction(Reaction, id: String, actor: String, reactionID: String?, object: String?)
    /// Undo of an activity given only by its id: a Follow, Like or
    /// Announce, whichever `actor` made with that id.
    case undo(id: String, actor: String, objectID: String)
    /// Any other type, or a known type blogd does not act on in that shape.
    case other(type: String, actor: String)

    public enum Reaction: String, Sendable, Equatable {
        case like = "Like"
        case announce = "Announce"
    }

    /// The actor that sent it (the signer must be this one).
    public var actor: String {
        switch self {
        case .follow(_, let actor, _), .undoFollow(_, let actor, _, _), .create(_, let actor, _),
             .update(_, let actor, _), .delete(_, let actor, _), .deleteActor(_, let actor),
             .reaction(_, _, let actor, _), .undoReaction(_, _, let actor, _, _), .undo(_, let actor, _),
             .other(_, let actor):
            return actor
        }
    }
}

/// A Note as the inbox keeps it: text only, every field bounded.
public struct InboundNote: Sendable, Equatable {
    public var id: String
    /// Who wrote it (`attributedTo`, the activity's actor when absent).
    public var author: String
    /// The author's display name when the activity embedded the actor.
    public var authorName: String?
    /// What it answers (`inReplyTo`), when anything.
    public var inReplyTo: String?
    /// Its `content` (or `contentMap`'s first) as text: markup dropped,
    /// cut to `InboundActivity.textLimit` characters.
    public var text: String
    /// Its title (`name`), when it has one.
    public var name: String?
    /// Its page (`url`), when it names one.
    public var url: String?
    public var published: Date?

    public init(id: String, author: String, authorName: String? = nil, inReplyTo: String? = nil, text: String = "",
                name: String? = nil, url: String? = nil, published: Date? = nil) {
        self.id = id
        self.author = author
        self.authorName = authorName
        self.inReplyTo = inReplyTo
        self.text = text
        self.name = name
        self.url = url
        self.published = published
    }
}
