import Foundation
import BlogModel

/// What the service tells the ActivityPub delivery: a post, edit,
/// deletion or restore committed, and may have queued an activity in its
/// commit (see `ActivityQueue`), so look now rather than at the next poll.
extension BlogService {
    /// `action` runs (on the request's thread; it must not block) after
    /// each change of a post.
    public func activitiesQueued(_ action: @escaping @Sendable () -> Void) {
        mentionSignal.activities.set(action)
    }
}
