import Foundation
import BlogModel

/// What the service tells the Webmention sender: a post, edit, deletion or
/// restore committed, and may have queued Webmentions in its commit (the
/// store queues them; see `WebmentionOutbox`), so look now rather than at
/// the next poll.
extension BlogService {
    /// `action` runs (on the request's thread; it must not block) after
    /// each change of a post that may have queued Webmentions.
    public func webmentionsQueued(_ action: @escaping @Sendable () -> Void) {
        mentionSignal.set(action)
    }
}

/// The sender's wake-up, set once blogd has made the sender.
final class MentionSignal: Sendable {
    private let action = Hook<Void>()
    /// The ActivityPub delivery's wake-up: every change of a post may
    /// have queued an activity (see `activitiesQueued`).
    let activities = Hook<Void>()

    func set(_ action: @escaping @Sendable () -> Void) { self.action.set(action) }

    /// After a change of a post whose texts (old or new) are `texts`: only
    /// text that may hold a link wakes the sender, so posts without links
    /// cost nothing more.
    func changed(_ texts: String...) {
        activities()
        guard texts.contains(where: { $0.contains("://") }) else { return }
        action()
    }

    /// After a change whose old text is not at hand (an edit).
    func changed() {
        activities()
        action()
    }
}

/// One change's hold of its user's outbox rows (`WebmentionHolds`): taken
/// before the commit, let go once the pages show the change (then the
/// sender is woken) or the change failed; each user once.
final class MentionHold {
    private let storage: any BlogStorage
    private var userIDs: [Int64] = []

    init(_ storage: any BlogStorage, holding userID: Int64? = nil) {
        self.storage = storage
        if let userID { hold(userID) }
    }

    func hold(_ userID: Int64) {
        storage.holdWebmentions(ofUserID: userID)
        userIDs.append(userID)
    }

    func release() {
        for userID in userIDs { storage.releaseWebmentions(ofUserID: userID) }
        userIDs = []
    }
}
