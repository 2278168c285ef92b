import BlogWire
import Foundation

/// A blog as an ActivityPub actor (a `Person`), a pure function of its
/// settings and key: what a server shows as the account
/// `@alice@blog.example`, and where it sends follows and replies.
///
///     let actor = ActorDocument(user: "alice", settings: settings, publicKeyPEM: pem,
///                               urls: ActivityURLs(base: "https://blog.example/"))
///     actor.document["inbox"]   // "https://blog.example/ap/alice/inbox"
public struct ActorDocument: Sendable, Equatable {
    /// The user's name as stored (the case given at registration).
    public var user: String
    public var settings: BlogSettings
    /// The blog's RSA public key, PEM (SPKI).
    public var publicKeyPEM: String
    /// Follows wait for the author's yes (`Accept`) rather than being
    /// accepted at once.
    public var manuallyApprovesFollowers: Bool
    /// When the user registered, if known.
    public var published: Date?
    public var urls: ActivityURLs

    public init(user: String, settings: BlogSettings = .unset, publicKeyPEM: String,
                manuallyApprovesFollowers: Bool = false, published: Date? = nil, urls: ActivityURLs) {
        self.user = user
        self.settings = settings
        self.publicKeyPEM = publicKeyPEM
        self.manuallyApprovesFollowers = manuallyApprovesFollowers
        self.published = published
        self.urls = urls
    }

    /// The actor's URL, its `id`.
    public var id: String { urls.actor(user) }

    /// The actor as served at its URL, with its `@context`.
    public var document: ActivityJSON {
        var fields: [(String, ActivityJSON)] = [
            ("id", .string(id)),
            ("type", "Person"),
            ("preferredUsername", .string(user)),
            ("name", .string(settings.authorName ?? user)),
        ]
        if let description = settings.description {
            var escaped: [UInt8] = []
            HTMLEscape.append(description, to: &escaped)
            fields.append(("summary", .string(String(decoding: escaped, as: UTF8.self))))
        }
        fields.append(("url", .string(urls.page(user))))
        if let photo = settings.authorPhoto {
            fields.append(("icon", .object([
                ("type", "Image"),
                ("mediaType", .string(photo.lowercased().hasSuffix(".png") ? "image/png" : "image/jpeg")),
                ("url", .string(urls.file(photo))),
            ])))
        }
        fields += [
            ("inbox", .string(urls.inbox(user))),
            ("outbox", .string(urls.outbox(user))),
            ("followers", .string(urls.followers(user))),
            ("following", .string(urls.following(user))),
            ("endpoints", .object([("sharedInbox", .string(urls.sharedInbox))])),
            ("publicKey", .object([
                ("id", .string(urls.key(user))),
                ("owner", .string(id)),
                ("publicKeyPem", .string(publicKeyPEM)),
            ])),
            ("discoverable", true),
            ("manuallyApprovesFollowers", .bool(manuallyApprovesFollowers)),
        ]
        if let published { fields.append(("published", .string(PostDate.machine(published)))) }
        return ActivityContext.document(.object(fields))
    }
}
