import BlogCore
import BlogModel
import Foundation

/// The inbox's changes on the blog's own storage (`ActivityPubStorage`):
/// followers and blocks as they are kept, replies, likes and reposts as
/// fediverse responses beside the Webmentions (a reply waits for approval;
/// a like or repost is counted at once, as the store's responses allow),
/// and the post's page rewritten when what it shows changed.
public struct StoredInboxActions: InboxActions {
    let service: BlogService
    let baseURL: String
    let now: @Sendable () -> Date

    /// Follows are accepted at once unless the blog approves its followers
    /// by hand (its setting); an accepted follow's `Accept` is queued with
    /// the follower, in one commit, for the delivery worker to send.
    public init(service: BlogService, baseURL: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.service = service
        self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        self.now = now
    }

    private var storage: any BlogStorage { service.storage }

    public func blog(named name: String) throws(InboxActionError) -> InboxBlog? {
        try run {
            guard let user = try storage.user(named: name), !user.suspended else { return nil }
            return InboxBlog(userID: user.id, name: user.name,
                             acceptsFollowers: !(try service.approvesFollowersByHand(userID: user.id)))
        }
    }

    public func hasPost(_ postID: Int64, ofUserID userID: Int64) throws(InboxActionError) -> Bool {
        try run { try storage.posts(ids: [postID]).first?.userID == userID }
    }

    public func isBlocked(actor: String, ofUserID userID: Int64) throws(InboxActionError) -> Bool {
        try run { try storage.isBlocked(userID: userID, actorID: actor) }
    }

    /// Kept, and when accepted (now, or before: its server asks again) its
    /// `Accept` queued in the same commit (`BlogService.receiveFollow`).
    public func addFollower(_ follower: InboxFollower, ofUserID userID: Int64, accepted: Bool) throws(InboxActionError) {
        try run {
            guard let user = try storage.user(id: userID) else { return }
            _ = try service.receiveFollow(userID: userID, user: user.name, actor: follower.actor, inbox: follower.inbox,
                                          sharedInbox: follower.sharedInbox, followID: follower.followID,
                                          accept: accepted)
        }
    }

    /// Nothing more: `addFollower` queued the Accept with the follower.
    public func queueAccept(of follower: InboxFollower, byUserID userID: Int64) throws(InboxActionError) {}

    /// With no blog named (an Undo by the Follow's id alone, at the shared
    /// inbox), the actor's follows with that Follow id on every blog: the
    /// actor and the id must both match, so no one undoes another's follow.
    public func removeFollower(actor: String, followID: String?, ofUserID userID: Int64?) throws(InboxActionError) {
        guard let userID else {
            guard let followID else { return }
            _ = try run { try storage.removeFollows(actorID: actor, followID: followID) }
            return
        }
        try run {
            guard let kept = try storage.follower(userID: userID, actorID: actor),
                  followID == nil || kept.followID == followID
            else { return }
            _ = try storage.removeFollower(userID: userID, actorID: actor)
        }
    }

    public func addResponse(_ response: InboxResponse) throws(InboxActionError) {
        let approved = response.kind != .reply
        if !approved {
            let waiting = try run { try storage.unapprovedWebmentionCount(ofUserID: response.userID) }
            guard waiting < BlogService.webmentionsWaitingLimit else { throw .tooManyWaiting }
        }
        try run {
            guard let owner = try storage.user(id: response.userID) else { return }
            let kind: Webmention.Kind = switch response.kind {
            case .reply: .reply
            case .like: .like
            case .repost: .repost
            }
            let stored = try storage.storeFediverseResponse(FediverseResponse(
                userID: response.userID, postID: response.postID, actorID: response.actor, source: response.activityID,
                target: baseURL + "\(owner.name)/\(response.postID).html", content: content(response.content, kind: kind),
                approved: approved), at: now())
            if let stored, stored.isShown { try service.rewriteResponses(ofUserID: stored.userID, postID: stored.postID) }
        }
    }

    public func updateResponse(objectID: String, actor: String, content new: InboxResponse.Content) throws(InboxActionError) {
        try run {
            for kept in try storage.fediverseResponses(source: objectID) where kept.actorID == actor {
                let stored = try storage.storeFediverseResponse(FediverseResponse(
                    userID: kept.userID, postID: kept.postID, actorID: actor, source: objectID, target: kept.target,
                    content: content(new, kind: kept.content.kind), approved: kept.approved), at: now())
                if let stored, stored.isShown { try service.rewriteResponses(ofUserID: stored.userID, postID: stored.postID) }
            }
        }
    }

    public func removeResponses(actor: String, id: String) throws(InboxActionError) {
        try run {
            for removed in try storage.removeFediverseResponses(source: id, actorID: actor, ofUserID: nil) where removed.isShown {
                try service.rewriteResponses(ofUserID: removed.userID, postID: removed.postID)
            }
        }
    }

    /// The actor's likes or reposts among those shown under the post (the
    /// first thousand): an Undo that names only the post.
    public func removeReactions(actor: String, kind: InboxResponse.Kind, postID: Int64, ofUserID userID: Int64)
        throws(InboxActionError) {
        let wanted: Webmention.Kind = kind == .like ? .like : .repost
        try run {
            let shown = try storage.shownWebmentions(postID: postID, offset: 0, limit: 1000)
            var changed = false
            for mention in shown where mention.origin == .activitypub && mention.actorID == actor && mention.content.kind == wanted {
                changed = try !storage.removeFediverseResponses(source: mention.source, actorID: actor, ofUserID: userID).isEmpty
                    || changed
            }
            if changed { try service.rewriteResponses(ofUserID: userID, postID: postID) }
        }
    }

    public func removeActor(_ actor: String) throws(InboxActionError) {
        try run { _ = try storage.forgetActor(actor) }
    }

    private func content(_ content: InboxResponse.Content, kind: Webmention.Kind) -> WebmentionContent {
        WebmentionContent(kind: kind, authorName: content.authorName, authorURL: content.authorURL, title: content.title,
                          text: content.text).bounded
    }

    private func run<T>(_ body: () throws -> T) throws(InboxActionError) -> T {
        do { return try body() } catch let error as InboxActionError { throw error } catch { throw .storage(error) }
    }
}
