import Foundation

extension ActivityURLs {
    /// The site's own actor (an `Application`): `BASE ap`, the folder of
    /// every blog's actor, which no blog's name can take.
    public var instanceActor: String { base + PageRenderer.activityFolder }
    /// Its key's id: the `keyId` of the GETs the shared inbox signs.
    public var instanceKey: String { instanceActor + "#main-key" }
}

/// The site as an ActivityPub actor of its own (an `Application`, as
/// Mastodon's instance actor is): it speaks for no blog, follows no one
/// and is followed by no one. It exists for its key: the shared inbox
/// signs its GETs of signers' keys with it, since servers in "authorized
/// fetch" mode answer only signed GETs, and no blog is the one asking.
///
///     InstanceActorDocument(publicKeyPEM: pem, urls: urls).document
///     // {"id":"https://blog.example/ap","type":"Application","preferredUsername":"blog.example",…}
public struct InstanceActorDocument: Sendable, Equatable {
    /// The site's RSA public key, PEM (SPKI).
    public var publicKeyPEM: String
    public var urls: ActivityURLs

    public init(publicKeyPEM: String, urls: ActivityURLs) {
        self.publicKeyPEM = publicKeyPEM
        self.urls = urls
    }

    /// The site's host without its port: the actor's `preferredUsername`,
    /// found by WebFinger as `acct:HOST@HOST` (Mastodon's form).
    public var name: String { Self.name(of: urls) }

    static func name(of urls: ActivityURLs) -> String {
        let host = WebFingerDocument.host(of: urls.base)
        // A bracketed IPv6 literal keeps its colons; only a port is cut.
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") { return String(host[..<colon]) }
        return host
    }

    /// The actor as served at its URL, with its `@context`. Its inbox is
    /// the shared inbox; it has no outbox or collections to show.
    public var document: ActivityJSON {
        let id = urls.instanceActor
        let fields: [(String, ActivityJSON)] = [
            ("id", .string(id)),
            ("type", "Application"),
            ("preferredUsername", .string(name)),
            ("name", .string(name)),
            ("url", .string(urls.base)),
            ("inbox", .string(urls.sharedInbox)),
            ("endpoints", .object([("sharedInbox", .string(urls.sharedInbox))])),
            ("publicKey", .object([
                ("id", .string(urls.instanceKey)),
                ("owner", .string(id)),
                ("publicKeyPem", .string(publicKeyPEM)),
            ])),
            ("discoverable", false),
            ("manuallyApprovesFollowers", true),
        ]
        return ActivityContext.document(.object(fields))
    }
}

extension WebFingerDocument {
    /// Whether `name` (of an `acct:` resource on this site's host) is the
    /// instance actor's: a blog of the same name comes first.
    public func namesInstance(_ name: String) -> Bool {
        name.lowercased() == InstanceActorDocument.name(of: urls)
    }

    /// The JRD of the instance actor; with `rels`, only those links.
    public func instanceDocument(rels: [String] = []) -> ActivityJSON {
        var links: [ActivityJSON] = []
        if rels.isEmpty || rels.contains("self") {
            links.append(.object([("rel", "self"), ("type", .string(ActivityContext.mediaType)),
                                  ("href", .string(urls.instanceActor))]))
        }
        let name = InstanceActorDocument.name(of: urls)
        return .object([
            ("subject", .string("acct:\(name)@\(host)")),
            ("aliases", .array([.string(urls.instanceActor)])),
            ("links", .array(links)),
        ])
    }
}
