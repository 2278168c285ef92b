import BlogWire
import Foundation

/// Posts: storing, editing and removing them, and reading them back as
/// the pages, feeds and index need them, with the page groups they fall
/// into and the lock under which a user's pages are written.
public protocol PostStorage: Sendable {
    /// Inserts a post of an existing user (`.unknownUser` otherwise). Its
    /// page group is chosen by `layout` from the user's newest group, in
    /// the same transaction, so concurrent posts of one user never crowd
    /// one group past its limits. A store with one writing process may
    /// also return the user's newest posts as of that insert, which is
    /// what the main page needs (`newestPosts`), read where it was cheap.
    ///
    /// `token` names this insert and no other: a store whose commit can be
    /// lost on the way back (a server over the network) stores it with the
    /// post, settles a commit whose outcome it did not hear by looking for
    /// it, and throws `.outcomeUnknown` only when it could not in time.
    ///
    /// `photos` (names, in the order the post shows them) are attached in
    /// the same transaction: each must be stored, the user's and on no post
    /// yet, and at most `PostPhoto.maxPerPost`; otherwise it throws
    /// `.unknownPhoto` and stores nothing. `weight` is the text's
    /// (`PageRenderer.weight(title:content:)`): the store adds the photos'
    /// (`PageRenderer.weight(photos:)`) once it has read their sizes, before
    /// it chooses the group. The record carries the photos, each with its
    /// alt text. `contentHTML` (the HTML `content` was derived from, or
    /// nil) is stored beside the text and never rendered. `categories`
    /// (normalized tags, `Hashtags.normalized`) are stored with the post,
    /// and its tags (`PostRecord.tags`) written in the same transaction.
    func insertPost(userID: Int64, title: String, content: String, contentHTML: String?, categories: [String],
                    weight: Int, place: Place?,
                    photos: [PhotoAttachment], at date: Date, layout: PageLayout,
                    token: UUID) throws(StorageError) -> NewPost

    /// Settles the insert of `token` for good: if no post holds it, no post
    /// ever will (the token is claimed, so a commit still under way fails),
    /// and it returns nil; otherwise it returns the post's id. Stores that
    /// always know their commit's outcome (SQLite, in process) have nothing
    /// to settle and return nil.
    func claimPostToken(_ token: UUID) throws(StorageError) -> Int64?

    /// Forgets the tokens of inserts settled before `date`.
    func deletePostTokens(before date: Date) throws(StorageError)

    /// Deletes post `id` if `userID` (any user when nil) wrote it, with
    /// the counts kept for the index; returns it as it was, or nil when
    /// there is no such post. With `tombstone`, the deletion is recorded
    /// (`deletedPostIDs`): its page answers 410 Gone. (A post taken back
    /// before its OK was never shown, and leaves none.)
    ///
    /// The post's photos go in the same transaction: the record returned
    /// carries them, and the caller removes their files. A post taken back
    /// (no tombstone) was never shown either: its photos are not deleted
    /// but put back on no post, so that the author's retry can attach them
    /// again (`deletePhotos(unattachedBefore:)` prunes them otherwise).
    func removePost(id: Int64, ofUserID userID: Int64?, tombstone: Bool) throws(StorageError) -> PostRecord?

    /// Ids of the user's posts deleted with a tombstone (those in the
    /// trash too: their pages answer 410 Gone as well).
    func deletedPostIDs(ofUserID userID: Int64) throws(StorageError) -> [Int64]

    /// Sets what `edit` says of post `id` of `userID` (title, text, its
    /// HTML source, and the photos and place when told), marks it edited
    /// at `date` and returns it as stored, with the photos it lost; nil
    /// when `userID` has no such post. The post keeps its page group;
    /// `weight` is the text's, and the store adds the photos' (as
    /// `insertPost` does).
    ///
    /// New photos must be the user's and on no post (as for `insertPost`),
    /// at most `PostPhoto.maxPerPost` in all; otherwise it throws
    /// `.unknownPhoto` and changes nothing. The photos the post loses are
    /// deleted in the same transaction.
    func editPost(id: Int64, ofUserID userID: Int64, _ edit: PostEdit, weight: Int,
                  photoWeight: @escaping @Sendable ([PostPhoto]) -> Int,
                  at date: Date) throws(StorageError) -> EditedPost?

    /// The user's page groups, newest first; at most `limit` of them.
    func pageGroups(ofUserID userID: Int64, limit: Int?) throws(StorageError) -> [PageGroup]

    /// What a main page is rendered from, in one read: the posts of the
    /// user's two newest page groups, newest first, with their group and
    /// weight.
    func newestPosts(ofUserID userID: Int64) throws(StorageError) -> [PostStub]

    /// The user's posts in `pages`, newest first.
    func postStubs(ofUserID userID: Int64, pages: ClosedRange<Int>) throws(StorageError) -> [PostStub]

    /// The posts just before and just after `post` in its author's order
    /// (page group, then id), whether or not `post` itself is still there.
    func adjacentPosts(to post: PostStub, ofUserID userID: Int64) throws(StorageError) -> AdjacentPosts

    /// The user's `limit` newest posts, whole, newest first (a feed).
    func recentPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostRecord]

    /// The user's `limit` newest posts that have a place, whole, newest
    /// first (the blog's map page).
    func placedPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostRecord]

    /// The id, title and time of the user's `limit` newest posts, newest first.
    func postHeadings(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostHeading]

    /// The site's `limit` newest posts with their authors, newest first
    /// (the site feed): one step down the primary key each.
    func recentPosts(limit: Int) throws(StorageError) -> [AuthoredPost]

    /// The posts with these ids, in any order.
    func posts(ids: [Int64]) throws(StorageError) -> [PostRecord]

    /// The `limit` most recently active blogs, newest post first (then the
    /// blogs without posts, newest first), from what is kept with each
    /// user: the cost does not grow with the number of users.
    func blogIndex(limit: Int) throws(StorageError) -> [BlogEntry]

    /// `blogIndex(limit:)` for only the blogs whose newest post is from
    /// `date` on (none without posts): what changed since an index was
    /// read, at the cost of the rows it returns.
    func blogIndex(activeSince date: Date, limit: Int) throws(StorageError) -> [BlogEntry]

    /// Runs `body` holding the right to write the pages of `userID`: other
    /// processes on the same database wait, so the last page written is
    /// rendered from the last state committed. One process on SQLite needs
    /// no more than its own page writer, which already writes one page of a
    /// user at a time.
    func withPageLock<T>(userID: Int64, _ body: () throws -> T) throws -> T
}
