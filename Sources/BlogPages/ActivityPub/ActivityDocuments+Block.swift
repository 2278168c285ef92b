import Foundation

extension ActivityDocuments {
    /// `Block` of `blocked` by `user`, as Mastodon sends one (`id`, `type`,
    /// `actor`, `object`): its server ends the follow both ways and keeps
    /// the block until our `Undo` of it.
    public static func block(_ blocked: String, by user: String, at blockedAt: Date, urls: ActivityURLs) -> ActivityJSON {
        ActivityContext.document(blockObject(blocked, by: user, at: blockedAt, urls: urls))
    }

    /// `Undo` of that `Block`, with the Block inside whole (Mastodon reads
    /// the undone Block from it, not by fetching its id).
    public static func undoBlock(_ blocked: String, by user: String, blockedAt: Date, urls: ActivityURLs) -> ActivityJSON {
        let id = blockID(blocked, by: user, at: blockedAt, urls: urls)
        return ActivityContext.document(.object([
            ("id", .string(id.replacingOccurrences(of: "#block-", with: "#unblock-"))),
            ("type", "Undo"),
            ("actor", .string(urls.actor(user))),
            ("to", .array([.string(blocked)])),
            ("object", blockObject(blocked, by: user, at: blockedAt, urls: urls)),
        ]))
    }

    /// `<actor>#block-<16 hex digits>-<ms>`: the blocked actor's hash (as
    /// `acceptID` makes one) and when the block was made, so blocking the
    /// same actor again later is another Block.
    public static func blockID(_ blocked: String, by user: String, at blockedAt: Date, urls: ActivityURLs) -> String {
        let hash = acceptID(followID: blocked, user: user, urls: urls).suffix(16)
        return urls.actor(user) + "#block-" + hash + "-" + String(Int64((blockedAt.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    private static func blockObject(_ blocked: String, by user: String, at blockedAt: Date, urls: ActivityURLs) -> ActivityJSON {
        .object([
            ("id", .string(blockID(blocked, by: user, at: blockedAt, urls: urls))),
            ("type", "Block"),
            ("actor", .string(urls.actor(user))),
            ("object", .string(blocked)),
        ])
    }
}
