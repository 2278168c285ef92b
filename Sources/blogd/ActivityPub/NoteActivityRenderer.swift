import BlogCore
import BlogModel
import BlogPages

/// The activities the delivery worker sends, as the actor's pages show
/// them: `Create`/`Update` of the post's full `NoteDocument`, `Delete` of
/// a `Tombstone` (`ActivityDocuments`), so a follower's copy matches what
/// it fetches from `BASE ap/NAME/posts/ID`.
struct NoteActivityRenderer: ActivityRenderer {
    func render(_ activity: QueuedActivity, user: UserRecord, post: PostRecord?, baseURL: String) -> String? {
        let urls = ActivityURLs(base: baseURL)
        let document: ActivityJSON
        switch activity.kind {
        case .delete:
            document = ActivityDocuments.delete(postID: activity.postID, user: user.name, urls: urls, at: activity.queuedAt)
        case .create, .update:
            // Gone since it was queued: its Delete follows, nothing to say before it.
            guard let post else { return nil }
            let note = NoteDocument(post: post, user: user.name, urls: urls)
            document = activity.kind == .create ? ActivityDocuments.create(note: note)
                : ActivityDocuments.update(note: note, at: activity.queuedAt)
        }
        return String(decoding: document.bytes, as: UTF8.self)
    }
}
