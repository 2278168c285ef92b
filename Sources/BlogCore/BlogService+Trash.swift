import BlogWire
import Foundation
import BlogModel
import BlogPages

/// The trash: `delpost` (the web client's delete, Micropub's `delete`)
/// moves a post there (`BlogStorage.trashPost`). Readers see it gone at
/// once (410, off every page, feed, the index and the map, its photo
/// files removed); its author can restore it for `trashDays`
/// (`restorePost`); then the background pruning purges it
/// (`purgeTrash`): its text and photos leave the database.
extension BlogService {
    /// What became of a restore.
    public enum RestoreOutcome: Sendable, Equatable {
        /// Back on its pages, with its id, date, place and photos.
        case restored
        /// The user's trash holds no such post (never there, restored
        /// already, purged, or another user's).
        case notInTrash
        /// The user may not act now (not logged in, suspended, unknown).
        case refused
        /// The database or the pages failed; the post may be back, and
        /// the next write of the blog (or the start-up check) shows it.
        case failed
    }

    /// Posts purged in one commit: a user who emptied a large blog into
    /// the trash does not hold the writer for long.
    static let purgeBatch = 500

    /// Brings post `id` of `user` back from the trash, under the rule that
    /// governs posting (`mayActAs`): its pages, its feed, the index and its
    /// photo files are written before it returns.
    public func restorePost(_ user: Username, id: Int64, session: Session) -> RestoreOutcome {
        RequestDeadline.$end.withValue(storageDeadline()) { restoring(user, id: id, session: session) }
    }

    private func restoring(_ user: Username, id: Int64, session: Session) -> RestoreOutcome {
        do {
            guard let owner = try activeUser(user), try mayActAs(user, session) else { return .refused }
            let restored: PostRecord
            let hold = MentionHold(storage, holding: owner.id)
            defer { hold.release() }
            do {
                guard let post = try storage.restorePost(id: id, ofUserID: owner.id) else { return .notInTrash }
                restored = post
            } catch .unknownUser {
                return .refused
            }
            fragments.store(RenderedPost(restored, user: owner.name), for: id)
            try showTrashState(of: owner, post: restored.stub, photos: restored.photos, expected: restored)
            hold.release()
            mentionSignal.changed(restored.content)
            return .restored
        } catch {
            logger.error("restore failed", metadata: ["user": "\(user)", "post": "\(id)", "error": "\(error)"])
            return .failed
        }
    }

    /// Brings the pages and photo files of `post` in line with whether the
    /// database holds it now (restored) or not (in the trash), under the
    /// user's page lock: a trash and a restore of one post racing each
    /// other (two tabs) each write what the database says when they hold
    /// the lock, so the last one leaves what the last commit said, photo
    /// files included. `expected` is what the caller's own commit left,
    /// taken when the database cannot be read. Then the index.
    func showTrashState(of owner: UserRecord, post: PostStub, photos: [PostPhoto], expected: PostRecord?) throws {
        try storage.withPageLock(userID: owner.id) {
            let read: [PostRecord]? = try? storage.posts(ids: [post.id])
            if let back = read.map({ $0.first }) ?? expected {
                // The files before the pages that show them.
                _ = try photoFiles.restore(back.photos, from: storage)
                try userPages.restore(owner, post: back.stub)
            } else {
                // Whatever becomes of the pages: a trashed post's photos
                // are no one's to see (their rows wait in the trash).
                photoFiles.remove(photos)
                try userPages.rewrite(owner, after: post, deleted: true)
            }
        }
        index.flush(0, .all)
    }

    /// Purges the posts that have been in the trash for `trashDays` by the
    /// service's clock: their text and photos leave the database; their
    /// pages answer 410 Gone as before. blogd runs it every minute with the
    /// other pruning (`pruneLoginState`). Returns how many went.
    @discardableResult
    public func purgeTrash() throws(StorageError) -> Int {
        let cutoff = now() - Double(max(0, settings.trashDays)) * 86_400
        var purged = 0
        while true {
            let batch = try storage.purgeTrash(trashedBefore: cutoff, limit: Self.purgeBatch)
            purged += batch
            if batch < Self.purgeBatch { break }
        }
        if purged > 0 { logger.info("trash purged", metadata: ["posts": "\(purged)"]) }
        return purged
    }
}
