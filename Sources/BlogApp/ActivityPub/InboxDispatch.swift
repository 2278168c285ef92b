import Foundation

/// What each activity does to our blogs, once its signer is known to be
/// its actor. Activities about anything that is not ours (someone else's
/// posts, an actor we do not have) change nothing.
struct InboxDispatch: Sendable {
    enum Outcome: Equatable {
        /// Done: something changed (or was already so).
        case done
        /// Not about anything of ours, or of a kind we do not act on.
        case ignored
        /// The blog concerned blocks the actor or its host.
        case blocked
        /// The activity cannot be acted on as sent (`400`, the text says why).
        case refused(String)
    }

    let addresses: InboxAddresses
    let actions: any InboxActions
    /// Asked for a follower's inbox when the signature check did not bring it.
    var profiles: (any InboxActorProfiles)?
    /// The blog whose own inbox (`/ap/NAME/inbox`) the activity came to;
    /// nil for the shared inbox.
    var inboxBlog: String?

    func handle(_ activity: InboundActivity, signer: InboxSigner) throws(InboxActionError) -> Outcome {
        switch activity {
        case .follow(let id, let actor, let object):
            guard let name = addresses.actorName(object), let blog = try actions.blog(named: name) else { return .ignored }
            guard try !actions.isBlocked(actor: actor, ofUserID: blog.userID) else { return .blocked }
            var inbox = signer.inbox, sharedInbox = signer.sharedInbox
            if inbox == nil, let profile = profiles?.profile(of: actor) {
                (inbox, sharedInbox) = (profile.inbox, profile.sharedInbox)
            }
            guard let inbox else { return .refused("The actor's document could not be read, or names no inbox.") }
            let follower = InboxFollower(actor: actor, inbox: inbox, sharedInbox: sharedInbox, followID: id,
                                         followJSON: Self.followJSON(id: id, actor: actor, object: object))
            try actions.addFollower(follower, ofUserID: blog.userID, accepted: blog.acceptsFollowers)
            if blog.acceptsFollowers { try actions.queueAccept(of: follower, byUserID: blog.userID) }
            return .done

        case .undoFollow(_, let actor, let followID, let object):
            var userID: Int64?
            if let object, let name = addresses.actorName(object) {
                guard let blog = try actions.blog(named: name) else { return .ignored }
                userID = blog.userID
            }
            guard userID != nil || followID != nil else { return .ignored }
            try actions.removeFollower(actor: actor, followID: followID, ofUserID: userID)
            return .done

        case .create(_, let actor, let note):
            guard let inReplyTo = note.inReplyTo, let post = try ourPost(inReplyTo) else { return .ignored }
            guard try !actions.isBlocked(actor: actor, ofUserID: post.blog.userID) else { return .blocked }
            try actions.addResponse(InboxResponse(userID: post.blog.userID, postID: post.postID, kind: .reply, actor: actor,
                                                  activityID: note.id, content: content(of: note, signer: signer)))
            return .done

        case .update(_, let actor, let note):
            if let inReplyTo = note.inReplyTo, let post = try ourPost(inReplyTo),
               try actions.isBlocked(actor: actor, ofUserID: post.blog.userID) {
                return .blocked
            }
            try actions.updateResponse(objectID: note.id, actor: actor, content: content(of: note, signer: signer))
            return .done

        case .delete(_, let actor, let object):
            try actions.removeResponses(actor: actor, id: object)
            return .done

        case .deleteActor(_, let actor):
            try actions.removeActor(actor)
            return .done

        case .reaction(let reaction, let id, let actor, let object):
            guard let post = try ourPost(object) else { return .ignored }
            guard try !actions.isBlocked(actor: actor, ofUserID: post.blog.userID) else { return .blocked }
            let content = InboxResponse.Content(authorName: signer.name ?? actor, authorURL: signer.url ?? actor,
                                                source: signer.url ?? actor)
            try actions.addResponse(InboxResponse(userID: post.blog.userID, postID: post.postID, kind: Self.kind(of: reaction),
                                                  actor: actor, activityID: id, content: content))
            return .done

        case .undoReaction(let reaction, _, let actor, let reactionID, let object):
            if let reactionID {
                try actions.removeResponses(actor: actor, id: reactionID)
                return .done
            }
            guard let object, let post = try ourPost(object) else { return .ignored }
            try actions.removeReactions(actor: actor, kind: Self.kind(of: reaction), postID: post.postID,
                                         ofUserID: post.blog.userID)
            return .done

        case .undo(_, let actor, let objectID):
            // Only its id: whichever of the actor's Follows or responses has
            // it. A blog's own inbox names the blog a Follow was of (bovine
            // undoes a Follow this way, sent to the followed actor's inbox).
            let userID = try inboxBlog.flatMap { name throws(InboxActionError) in try actions.blog(named: name)?.userID }
            try actions.removeFollower(actor: actor, followID: objectID, ofUserID: userID)
            try actions.removeResponses(actor: actor, id: objectID)
            return .done

        case .other:
            return .ignored
        }
    }

    /// The blog and post when `id` is one of our posts and it exists.
    private func ourPost(_ id: String) throws(InboxActionError) -> OurPost? {
        guard let named = addresses.post(id), let blog = try actions.blog(named: named.name),
              try actions.hasPost(named.postID, ofUserID: blog.userID)
        else { return nil }
        return OurPost(blog: blog, postID: named.postID)
    }

    private struct OurPost {
        let blog: InboxBlog
        let postID: Int64
    }

    private func content(of note: InboundNote, signer: InboxSigner) -> InboxResponse.Content {
        InboxResponse.Content(authorName: note.authorName ?? signer.name ?? note.author, authorURL: signer.url ?? note.author,
                              title: note.name ?? "", text: note.text, source: note.url ?? note.id)
    }

    private static func kind(of reaction: InboundActivity.Reaction) -> InboxResponse.Kind {
        reaction == .like ? .like : .repost
    }

    /// The Follow as an `Accept` embeds it: only what identifies it, so
    /// nothing else the sender put in it is sent back out.
    static func followJSON(id: String, actor: String, object: String) -> String {
        let follow = ["id": id, "type": "Follow", "actor": actor, "object": object]
        let data = (try? JSONSerialization.data(withJSONObject: follow, options: [.sortedKeys, .withoutEscapingSlashes]))
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
