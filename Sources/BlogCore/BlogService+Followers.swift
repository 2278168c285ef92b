import BlogModel
import BlogPages
import Foundation

/// A blog's followers from the fediverse and what it blocks, for the web
/// client's Fediverse settings and the `blogd` admin commands alike: the
/// rules live here once. An answer to a follower's server (the `Accept`
/// of an approved follow, the `Reject` of a refused or removed one) is
/// queued in the same commit as the change, as a delivery the ActivityPub
/// worker sends signed, retried and given up as it does posts; the worker
/// is woken at once (one in another process, such as a running `blogd
/// serve` under an admin command, finds it at its next look, within 30 s).
extension BlogService {
    /// The most followers one call lists.
    public static let followersPageLimit = 200

    /// The blog's followers, newest first: all, or those in `state`.
    public func followers(of name: String, state: Follower.State? = nil, offset: Int = 0,
                          limit: Int = 50) throws(FollowerModerationError) -> [Follower] {
        let user = try followersBlog(name)
        return try answering {
            try storage.followers(ofUserID: user.id, state: state, offset: max(0, offset),
                                  limit: min(max(1, limit), Self.followersPageLimit))
        }
    }

    /// How many followers the blog has: all, or those in `state`.
    public func followerCount(of name: String, state: Follower.State? = nil) throws(FollowerModerationError) -> Int {
        let user = try followersBlog(name)
        return try answering { try storage.followerCount(ofUserID: user.id, state: state) }
    }

    /// Accepts a follow that waits for the author, and queues its `Accept`.
    @discardableResult
    public func approveFollower(_ actor: String, of name: String) throws(FollowerModerationError) -> Follower {
        let user = try followersBlog(name)
        let urls = ActivityURLs(base: settings.baseURL)
        let accepted = try answering {
            try storage.acceptFollower(userID: user.id, actorID: actor, at: now()) { follower in
                Self.answer(.accept, follower, user: user.name, urls: urls)
            }
        }
        guard let accepted else { throw try missingFollower(actor, of: user) }
        mentionSignal.activities()
        return accepted
    }

    /// Refuses a follow that waits for the author: the follower goes, and
    /// its server is sent a `Reject`.
    @discardableResult
    public func refuseFollower(_ actor: String, of name: String) throws(FollowerModerationError) -> Follower {
        let user = try followersBlog(name)
        let kept = try answering { try storage.follower(userID: user.id, actorID: actor) }
        guard let kept else { throw .noSuchFollower(actor) }
        guard kept.state == .pending else { throw .notPending(actor) }
        return try reject(actor, of: user)
    }

    /// Removes a follower (accepted or waiting): it gets no more posts, and
    /// its server is sent a `Reject` of its Follow, which Mastodon reads
    /// as the end of the follow (as when its own users remove a follower).
    @discardableResult
    public func removeFollower(_ actor: String, of name: String) throws(FollowerModerationError) -> Follower {
        try reject(actor, of: try followersBlog(name))
    }

    /// A follow from the inbox: kept (accepted, unless the blog approves
    /// its followers by hand) and, when accepted (now or before), its
    /// `Accept` queued in the same commit.
    public func receiveFollow(userID: Int64, user: String, actor: String, inbox: String, sharedInbox: String?,
                              followID: String, accept: Bool) throws(StorageError) -> Follower {
        let urls = ActivityURLs(base: settings.baseURL)
        let follower = try storage.addFollower(userID: userID, actorID: actor, inbox: inbox, sharedInbox: sharedInbox,
                                               followID: followID, accepted: accept, at: now()) { follower in
            Self.answer(.accept, follower, user: user, urls: urls)
        }
        if follower.state == .accepted { mentionSignal.activities() }
        return follower
    }

    /// Whether the blog approves its followers by hand (off: every follow
    /// is accepted at once).
    public func approvesFollowersByHand(of name: String) throws(FollowerModerationError) -> Bool {
        let user = try followersBlog(name)
        return try answering { try storage.approvesFollowersByHand(userID: user.id) }
    }

    /// `approvesFollowersByHand` of a blog the caller knows by id (the
    /// inbox, the actor document).
    public func approvesFollowersByHand(userID: Int64) throws(StorageError) -> Bool {
        try storage.approvesFollowersByHand(userID: userID)
    }

    /// Turns approval by hand on or off. Turning it off accepts no one by
    /// itself: the follows waiting stay waiting for the author's choice.
    public func setApprovesFollowersByHand(_ on: Bool, of name: String) throws(FollowerModerationError) {
        let user = try followersBlog(name)
        try answering { try storage.setApprovesFollowersByHand(on, userID: user.id, at: now()) }
    }

    /// Blocks an actor or a domain (and its subdomains): the followers and
    /// responses it covers go in the same commit, each removed follower's
    /// server is sent a `Reject` of its Follow (as Mastodon does when its
    /// users block a follower: its side of the follow ends too), a blocked
    /// actor that followed is sent a `Block` too (as Mastodon sends one),
    /// the pages that showed those responses are rewritten, and the inbox
    /// refuses it from then on. Returns how many followers and responses went.
    @discardableResult
    public func block(_ target: BlockTarget, of name: String) throws(FollowerModerationError)
        -> (followers: Int, responses: Int) {
        let user = try followersBlog(name)
        let urls = ActivityURLs(base: settings.baseURL), blocked = target.value
        let removed = try answering {
            try storage.block(userID: user.id, target, at: now(), reject: { follower in
                Self.answer(.reject, follower, user: user.name, urls: urls)
            }, notice: { blockedAt in
                String(decoding: ActivityDocuments.block(blocked, by: user.name, at: blockedAt, urls: urls).bytes,
                       as: UTF8.self)
            })
        }
        if removed.followers > 0 { mentionSignal.activities() }
        if removed.responses > 0 {
            try answering {
                try RequestDeadline.$end.withValue(nil) {
                    _ = try storage.withPageLock(userID: user.id) { try userPages.repair(user) }
                }
            }
        }
        return removed
    }

    /// Lifts a block (nothing it removed comes back); when a `Block` was
    /// sent for it, its `Undo` is queued in the same commit, so the
    /// actor's server lets it follow the blog again.
    public func unblock(_ target: BlockTarget, of name: String) throws(FollowerModerationError) {
        let user = try followersBlog(name)
        let urls = ActivityURLs(base: settings.baseURL), blocked = target.value
        let lifted = try answering {
            try storage.unblock(userID: user.id, target, at: now()) { blockedAt in
                String(decoding: ActivityDocuments.undoBlock(blocked, by: user.name, blockedAt: blockedAt, urls: urls).bytes,
                       as: UTF8.self)
            }
        }
        guard lifted else { throw .noSuchBlock(target.value) }
        mentionSignal.activities()
    }

    /// The blog's blocks, newest first.
    public func blocks(of name: String) throws(FollowerModerationError) -> [ActorBlock] {
        let user = try followersBlog(name)
        return try answering { try storage.blocks(ofUserID: user.id) }
    }

    // MARK: Parts

    private func reject(_ actor: String, of user: UserRecord) throws(FollowerModerationError) -> Follower {
        let urls = ActivityURLs(base: settings.baseURL)
        let removed = try answering {
            try storage.refuseFollower(userID: user.id, actorID: actor, at: now()) { follower in
                Self.answer(.reject, follower, user: user.name, urls: urls)
            }
        }
        guard let removed else { throw .noSuchFollower(actor) }
        mentionSignal.activities()
        return removed
    }

    /// Why an approval found no pending follower.
    private func missingFollower(_ actor: String, of user: UserRecord) throws(FollowerModerationError)
        -> FollowerModerationError {
        let kept = try answering { try storage.follower(userID: user.id, actorID: actor) }
        return kept == nil ? .noSuchFollower(actor) : .notPending(actor)
    }

    /// The JSON of an answer to `follower`'s Follow.
    static func answer(_ kind: DeliveryKind, _ follower: Follower, user: String, urls: ActivityURLs) -> String {
        let document = kind == .reject
            ? ActivityDocuments.reject(followID: follower.followID, follower: follower.actorID, user: user, urls: urls)
            : ActivityDocuments.accept(followID: follower.followID, follower: follower.actorID, user: user, urls: urls)
        return String(decoding: document.bytes, as: UTF8.self)
    }

    private func followersBlog(_ name: String) throws(FollowerModerationError) -> UserRecord {
        let user = try answering { try storage.user(named: name) }
        guard let user else { throw .noSuchUser(name) }
        return user
    }

    private func answering<T>(_ body: () throws -> T) throws(FollowerModerationError) -> T {
        do { return try body() } catch let error as FollowerModerationError { throw error } catch {
            throw .storage(.init(description: "\(error)"))
        }
    }
}
