/// Where each blog's ActivityPub documents live, under the site's base
/// URL (`BlogConfig.effectiveBaseURL`, ending with `/`): the addresses
/// every part of blogd agrees on (docs/activitypub.md), built in one place.
///
///     let urls = ActivityURLs(base: "https://blog.example/")
///     urls.actor("alice")            // https://blog.example/ap/alice
///     urls.object("alice", id: 17)   // https://blog.example/ap/alice/posts/17
///     urls.page("alice", id: 17)     // https://blog.example/alice/17.html
public struct ActivityURLs: Sendable, Equatable {
    /// The site's URL, ending with `/`.
    public let base: String

    public init(base: String) {
        self.base = base.hasSuffix("/") ? base : base + "/"
    }

    /// The actor (`Person`) of `user`'s blog.
    public func actor(_ user: String) -> String { base + PageRenderer.actorFile(user: user) }
    /// Its public key's id, the `keyId` of its signatures.
    public func key(_ user: String) -> String { actor(user) + "#main-key" }
    public func inbox(_ user: String) -> String { actor(user) + "/inbox" }
    /// The inbox every blog of the site shares.
    public var sharedInbox: String { base + PageRenderer.activityFolder + "/" + PageRenderer.sharedInboxName }
    public func outbox(_ user: String) -> String { actor(user) + "/outbox" }
    /// Page `number` (from 1, newest first) of the outbox.
    public func outbox(_ user: String, page number: Int) -> String { outbox(user) + "?page=\(number)" }
    public func followers(_ user: String) -> String { actor(user) + "/followers" }
    public func following(_ user: String) -> String { actor(user) + "/following" }
    /// Post `id` as an object (`Note`).
    public func object(_ user: String, id: Int64) -> String { base + PageRenderer.objectFile(user: user, id: id) }
    /// The blog's page, for people.
    public func page(_ user: String) -> String { base + PageRenderer.mainFile(user: user) }
    /// Post `id`'s page, for people.
    public func page(_ user: String, id: Int64) -> String { base + PageRenderer.postFile(user: user, id: id) }
    /// The page of `tag` across the site's blogs.
    public func tag(_ tag: String) -> String { base + PageRenderer.tagPage(tag) }
    /// A file of the public folder (a photo): `path` relative to its top.
    public func file(_ path: String) -> String { base + path }
}

extension PageRenderer {
    /// `ap/alice`: the blog's actor, relative to the site's root.
    public static func actorFile(user: String) -> String { "ap/" + user }

    /// `ap/alice/posts/17`: post `id` as an ActivityPub object.
    public static func objectFile(user: String, id: Int64) -> String { "ap/\(user)/posts/\(id)" }

    /// The site's root folder for ActivityPub documents (`ap`): no blog
    /// may take it as its name.
    public static let activityFolder = "ap"

    /// `inbox`: the shared inbox's name in `ap/`, which no blog may take.
    public static let sharedInboxName = "inbox"
}
