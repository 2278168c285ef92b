import Foundation

/// The trash: a post its author deletes leaves every page at once (a
/// tombstone, as `removePost` leaves), but its row, photos and responses
/// (received Webmentions and fediverse replies) are kept until purged, so
/// that it can be restored whole.
public protocol TrashStorage: Sendable {
    /// Moves post `id` of `userID` to the trash at `date`, in one commit:
    /// it leaves the user's posts (with a tombstone, and the counts kept
    /// for the index), and its photos leave it but stay stored (no longer
    /// attachable, pruned or served), as do its responses (no longer read,
    /// verified, approved or shown). Returns it as it was, with its
    /// photos (the caller removes their files); nil when `userID` has no
    /// such post.
    func trashPost(id: Int64, ofUserID userID: Int64, at date: Date) throws(StorageError) -> PostRecord?

    /// The user's posts in the trash, most recently trashed first; at most
    /// `limit` of them.
    func trashedPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [TrashedPost]

    /// Brings post `id` of `userID` back from the trash with its id, date,
    /// place, text, photos and responses, in one commit (its tombstone goes), and
    /// returns it as stored. It goes back into its own page group, or into
    /// a lower one when a post written after it is there (its own group
    /// emptied meanwhile), so it never tops a newer post. nil when the trash
    /// holds no such post of `userID`; `.unknownUser` when the user is
    /// suspended (nothing changes).
    func restorePost(id: Int64, ofUserID userID: Int64) throws(StorageError) -> PostRecord?

    /// Purges at most `limit` of the posts trashed before `date`, oldest
    /// first: their text, photos and responses leave the database (their tombstones
    /// stay). Returns how many went.
    @discardableResult
    func purgeTrash(trashedBefore date: Date, limit: Int) throws(StorageError) -> Int

    /// Purges post `id` from the trash at once, whoever wrote it; returns
    /// its author's id, nil when the trash holds no such post.
    func purgeTrashedPost(id: Int64) throws(StorageError) -> Int64?
}
