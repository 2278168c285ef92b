import Foundation

/// Everything ActivityPub keeps: each blog's key pair, its followers, the
/// actors and domains it blocks, the responses from the fediverse (kept
/// with the received Webmentions), and the delivery queue.
public protocol ActivityPubStorage: ActorKeyStorage, FollowerStorage, ActorBlockStorage, FediverseResponseStorage,
    ActivityQueue, FollowAnswerQueue, FollowerApprovalStorage, FollowUndoStorage,
    BlockNoticeQueue {}

/// A blog's RSA key pair, as PEM text (SPKI public, PKCS#8 private).
public struct ActorKey: Sendable, Equatable {
    public var userID: Int64
    public var publicPEM: String
    public var privatePEM: String
    public var createdAt: Date

    public init(userID: Int64, publicPEM: String, privatePEM: String, createdAt: Date) {
        self.userID = userID
        self.publicPEM = publicPEM
        self.privatePEM = privatePEM
        self.createdAt = createdAt
    }
}

/// Each blog's key pair, made on first need and kept for good.
public protocol ActorKeyStorage: Sendable {
    /// The user's key pair; nil until one is stored.
    func actorKey(ofUserID userID: Int64) throws(StorageError) -> ActorKey?

    /// Keeps the pair given unless the user has one already, and returns
    /// the pair kept: of two instances making a key at once, both end with
    /// the first one stored. `.unknownUser` when there is no such user.
    func storeActorKey(userID: Int64, publicPEM: String, privatePEM: String,
                       at date: Date) throws(StorageError) -> ActorKey
}

/// Where an actor's URLs point: the host (lower case, no port) that
/// domain blocks match, the authority (host and a port that is not the
/// scheme's default), and the key deliveries are grouped by
/// (`deliveryKey`, DeliveryHostKey.swift).
public enum ActorHost {
    /// The host of `url`, lower case, without a trailing dot; "" when it has none.
    public static func host(of url: String) -> String {
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else { return "" }
        var name = host.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// `host`, with the port when the URL names one: two inboxes on one
    /// host but different ports are different servers.
    public static func authority(of url: String) -> String {
        let name = host(of: url)
        guard let port = URLComponents(string: url)?.port else { return name }
        return "\(name):\(port)"
    }

    /// The domains a block of which covers `host`: itself and each parent
    /// (`a.b.example` → `a.b.example`, `b.example`, `example`).
    public static func domains(of host: String) -> [String] {
        var found: [String] = []
        var rest = Substring(host)
        while !rest.isEmpty {
            found.append(String(rest))
            guard let dot = rest.firstIndex(of: ".") else { break }
            rest = rest[rest.index(after: dot)...]
        }
        return found
    }

    /// A domain as blocks keep it: lower case, no trailing dot, no spaces.
    public static func normalizedDomain(_ domain: String) -> String {
        var name = domain.trimmingCharacters(in: .whitespaces).lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }
}
