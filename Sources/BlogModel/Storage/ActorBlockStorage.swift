import Foundation

/// What a blog blocks: one actor, or a whole domain (and its subdomains).
public enum BlockTarget: Sendable, Equatable, Hashable {
    case actor(String)
    case domain(String)

    /// The kind as the store keeps it.
    public var kind: String {
        switch self {
        case .actor: "actor"
        case .domain: "domain"
        }
    }

    /// The value as the store keeps it (a domain normalized).
    public var value: String {
        switch self {
        case .actor(let id): id
        case .domain(let name): ActorHost.normalizedDomain(name)
        }
    }

    public init?(kind: String, value: String) {
        switch kind {
        case "actor": self = .actor(value)
        case "domain": self = .domain(value)
        default: return nil
        }
    }
}

/// One block of one blog.
public struct ActorBlock: Sendable, Equatable {
    public var userID: Int64
    public var target: BlockTarget
    public var createdAt: Date

    public init(userID: Int64, target: BlockTarget, createdAt: Date) {
        self.userID = userID
        self.target = target
        self.createdAt = createdAt
    }
}

/// Blocks of actors and domains, per blog.
public protocol ActorBlockStorage: Sendable {
    /// Blocks `target` for `userID` and, in the same transaction, removes
    /// the followers and fediverse responses it covers (a domain's
    /// subdomains too). Blocking again changes nothing more. Returns how
    /// many followers and responses went.
    func block(userID: Int64, _ target: BlockTarget,
               at date: Date) throws(StorageError) -> (followers: Int, responses: Int)

    /// Lifts a block; false when there was none.
    func unblock(userID: Int64, _ target: BlockTarget) throws(StorageError) -> Bool

    /// The user's blocks, newest first.
    func blocks(ofUserID userID: Int64) throws(StorageError) -> [ActorBlock]

    /// Whether `actorID` is blocked by `userID`: the actor itself, or its
    /// host's domain or any parent of it.
    func isBlocked(userID: Int64, actorID: String) throws(StorageError) -> Bool
}
