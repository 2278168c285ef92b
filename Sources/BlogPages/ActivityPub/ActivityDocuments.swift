import Foundation

/// The activities a blog sends, pure functions of their values, for the
/// delivery worker to sign and send and for the outbox to list. Their
/// ids follow the site's rule (docs/activitypub.md): `<object>#create`,
/// `<object>#update-<unix ms>`, `<object>#delete`,
/// `<actor>#accept-<hash of the follow's id>`.
///
///     let note = NoteDocument(post: post, user: "alice", urls: urls)
///     let bytes = ActivityDocuments.create(note: note).bytes
public enum ActivityDocuments {
    /// A new post: `Create` of its `Note`, to everyone, copied to followers.
    public static func create(note: NoteDocument) -> ActivityJSON {
        ActivityContext.document(createItem(note: note))
    }

    /// `create(note:)` without `@context`: an item of the outbox's pages.
    public static func createItem(note: NoteDocument) -> ActivityJSON {
        .object([
            ("id", .string(note.id + "#create")),
            ("type", "Create"),
            ("actor", .string(note.urls.actor(note.user))),
            ("published", .string(PostDate.machine(note.post.createdAt))),
        ] + audience(note.user, note.urls) + [("object", note.object)])
    }

    /// An edit: `Update` of the Note as it is now, made at `date`.
    public static func update(note: NoteDocument, at date: Date) -> ActivityJSON {
        ActivityContext.document(.object([
            ("id", .string(note.id + "#update-\(milliseconds(date))")),
            ("type", "Update"),
            ("actor", .string(note.urls.actor(note.user))),
            ("published", .string(PostDate.machine(date))),
        ] + audience(note.user, note.urls) + [("object", note.object)]))
    }

    /// A deletion: `Delete` of post `postID`, its object a `Tombstone`.
    public static func delete(postID: Int64, user: String, urls: ActivityURLs, at date: Date) -> ActivityJSON {
        let object = urls.object(user, id: postID)
        return ActivityContext.document(.object([
            ("id", .string(object + "#delete")),
            ("type", "Delete"),
            ("actor", .string(urls.actor(user))),
            ("published", .string(PostDate.machine(date))),
        ] + audience(user, urls) + [("object", tombstone(postID: postID, user: user, urls: urls, deleted: date))]))
    }

    /// What a deleted post's URL answers (with `410 Gone`): a `Tombstone`
    /// that was a `Note`; `deleted` when known.
    public static func tombstone(postID: Int64, user: String, urls: ActivityURLs, deleted: Date? = nil) -> ActivityJSON {
        var fields: [(String, ActivityJSON)] = [
            ("id", .string(urls.object(user, id: postID))),
            ("type", "Tombstone"),
            ("formerType", "Note"),
        ]
        if let deleted { fields.append(("deleted", .string(PostDate.machine(deleted)))) }
        return .object(fields)
    }

    /// `Accept` of the `Follow` `followID` that `follower` (an actor's
    /// URL) sent to `user`: the Follow goes inside whole, as Mastodon
    /// matches it by its id or by its actor and object.
    public static func accept(followID: String, follower: String, user: String, urls: ActivityURLs) -> ActivityJSON {
        followAnswer("Accept", id: acceptID(followID: followID, user: user, urls: urls),
                     followID: followID, follower: follower, user: user, urls: urls)
    }

    /// An `Accept` or a `Reject` (`type`) of a follow, with its Follow inside.
    static func followAnswer(_ type: String, id: String, followID: String, follower: String, user: String,
                             urls: ActivityURLs) -> ActivityJSON {
        let actor = urls.actor(user)
        return ActivityContext.document(.object([
            ("id", .string(id)),
            ("type", .string(type)),
            ("actor", .string(actor)),
            ("to", .array([.string(follower)])),
            ("object", .object([
                ("id", .string(followID)),
                ("type", "Follow"),
                ("actor", .string(follower)),
                ("object", .string(actor)),
            ])),
        ]))
    }

    /// `<actor>#accept-<16 hex digits>`: the same id each time for the
    /// same follow (FNV-1a, 64 bits, of its id: an id, not a secret).
    public static func acceptID(followID: String, user: String, urls: ActivityURLs) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in followID.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let digits = String(hash, radix: 16)
        return urls.actor(user) + "#accept-" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Public, and copied to the author's followers: what Mastodon calls
    /// a public post.
    private static func audience(_ user: String, _ urls: ActivityURLs) -> [(String, ActivityJSON)] {
        [("to", .array([.string(ActivityContext.publicAudience)])), ("cc", .array([.string(urls.followers(user))]))]
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
