/// Why a follower or block change did nothing (the web client shows it,
/// the admin commands print it); the storage's own error is kept.
public enum FollowerModerationError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchUser(String)
    /// The actor does not follow the blog (or waits no more).
    case noSuchFollower(String)
    /// Approve or refuse named a follower that is accepted already.
    case notPending(String)
    /// Unblock named no block.
    case noSuchBlock(String)
    /// The input breaks a rule, in words.
    case invalid(String)
    case storage(StorageFailure)

    /// The storage's error, as text and equatable.
    public struct StorageFailure: Equatable, Sendable {
        public var description: String
    }

    public var description: String {
        switch self {
        case .noSuchUser(let name): "no such user: \(name)"
        case .noSuchFollower(let actor): "no such follower: \(actor)"
        case .notPending(let actor): "not waiting for approval: \(actor) (remove it instead)"
        case .noSuchBlock(let value): "no such block: \(value)"
        case .invalid(let reason): reason
        case .storage(let failure): failure.description
        }
    }
}
