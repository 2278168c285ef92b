import BlogWire
import Foundation

/// What the service needs of a database: users, posts, and the page groups
/// posts fall into. `BlogStore` keeps them in SQLite; another backend
/// (PostgreSQL) implements the same calls.
///
/// Every write returns once its commit is durable, so an OK reply sent
/// after it keeps its promise.
///
///     let storage: any BlogStorage = try BlogStore(path: "data/blog.sqlite")
///     let alice = try storage.createUser(name: "alice", passwordHash: hash, at: Date())
public protocol BlogStorage: Sendable {
    /// The user of that name, compared regardless of case.
    func user(named name: String) throws(StorageError) -> UserRecord?

    /// The user with that id.
    func user(id: Int64) throws(StorageError) -> UserRecord?

    /// Inserts a user; `.nameTaken` when the name exists in any case.
    func createUser(name: String, passwordHash: String, at date: Date) throws(StorageError) -> UserRecord

    /// Deletes a user, their posts and their access tokens.
    func deleteUser(id: Int64) throws(StorageError)

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
    /// nil) is stored beside the text and never rendered.
    func insertPost(userID: Int64, title: String, content: String, contentHTML: String?, weight: Int, place: Place?,
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

    // The trash: a post its author deletes leaves every page at once (a
    // tombstone, as `removePost` leaves), but its row and photos are kept
    // until purged, so that it can be restored whole.

    /// Moves post `id` of `userID` to the trash at `date`, in one commit:
    /// it leaves the user's posts (with a tombstone, and the counts kept
    /// for the index), and its photos leave it but stay stored (no longer
    /// attachable, pruned or served). Returns it as it was, with its
    /// photos (the caller removes their files); nil when `userID` has no
    /// such post.
    func trashPost(id: Int64, ofUserID userID: Int64, at date: Date) throws(StorageError) -> PostRecord?

    /// The user's posts in the trash, most recently trashed first; at most
    /// `limit` of them.
    func trashedPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [TrashedPost]

    /// Brings post `id` of `userID` back from the trash with its id, date,
    /// place, text and photos, in one commit (its tombstone goes), and
    /// returns it as stored. It goes back into its own page group, or into
    /// a lower one when a post written after it is there (its own group
    /// emptied meanwhile), so it never tops a newer post. nil when the trash
    /// holds no such post of `userID`; `.unknownUser` when the user is
    /// suspended (nothing changes).
    func restorePost(id: Int64, ofUserID userID: Int64) throws(StorageError) -> PostRecord?

    /// Purges at most `limit` of the posts trashed before `date`, oldest
    /// first: their text and photos leave the database (their tombstones
    /// stay). Returns how many went.
    @discardableResult
    func purgeTrash(trashedBefore date: Date, limit: Int) throws(StorageError) -> Int

    /// Purges post `id` from the trash at once, whoever wrote it; returns
    /// its author's id, nil when the trash holds no such post.
    func purgeTrashedPost(id: Int64) throws(StorageError) -> Int64?

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

    /// Suspends a user (`suspended`) or lifts it.
    func setSuspended(userID: Int64, _ suspended: Bool, at date: Date) throws(StorageError)

    /// Sets a user's password hash and, in the same commit, ends what the
    /// old password gave: the user's login leases (every address) and web
    /// sessions (access tokens of kind `.session`). Bearer tokens stay: an
    /// app's token was given on purpose, is listed and revoked on its own.
    /// `.unknownUser` when there is no such user, and nothing changes.
    func updatePassword(userID: Int64, passwordHash: String) throws(StorageError)

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

    /// Every user, by id.
    func allUsers() throws(StorageError) -> [UserRecord]

    /// The `limit` most recently active blogs, newest post first (then the
    /// blogs without posts, newest first), from what is kept with each
    /// user: the cost does not grow with the number of users.
    func blogIndex(limit: Int) throws(StorageError) -> [BlogEntry]

    /// `blogIndex(limit:)` for only the blogs whose newest post is from
    /// `date` on (none without posts): what changed since an index was
    /// read, at the cost of the rows it returns.
    func blogIndex(activeSince date: Date, limit: Int) throws(StorageError) -> [BlogEntry]

    /// Every user with post count and last post time, by name.
    func userSummaries() throws(StorageError) -> [UserSummary]

    // Photos: uploaded first, attached by `insertPost`. The bytes are kept
    // in the database (so several instances share them and nothing
    // acknowledged lives only in a file); their files in the public folder
    // are derived, like the pages.

    /// Stores an uploaded photo, not yet on any post; durable before it
    /// returns. `.unknownUser` when the user is gone (or suspended, as for
    /// `insertPost`). A name stored already is a failure (two random
    /// 128-bit names never meet).
    func storePhoto(_ photo: PostPhoto, userID: Int64, image: [UInt8], thumbnail: [UInt8],
                    at date: Date) throws(StorageError)

    /// The bytes of a stored photo (to write its files again), nil when
    /// there is none or it is in the trash (its files must not be).
    func photoData(name: String) throws(StorageError) -> (image: [UInt8], thumbnail: [UInt8])?

    /// Deletes the photos on no post that were stored before `date`;
    /// returns them (their files go too).
    func deletePhotos(unattachedBefore date: Date) throws(StorageError) -> [PostPhoto]

    /// Every photo of the user, on a post or waiting for one, oldest first
    /// (deleting a user removes their files; the start-up check restores
    /// them); not those of posts in the trash, which have no files.
    func photos(ofUserID userID: Int64) throws(StorageError) -> [PostPhoto]

    /// Runs `body` holding the right to write the pages of `userID`: other
    /// processes on the same database wait, so the last page written is
    /// rendered from the last state committed. One process on SQLite needs
    /// no more than its own page writer, which already writes one page of a
    /// user at a time.
    func withPageLock<T>(userID: Int64, _ body: () throws -> T) throws -> T

    // Login state that instances on one database share (see LoginLeases
    // and LoginThrottle): kept in the database, so it also survives a restart.

    /// Grants or renews the lease of `userKey` (the lower-cased user name)
    /// at `address` until `expiry`; durable before it returns.
    func grantLease(userKey: String, address: String, until expiry: Date) throws(StorageError)

    /// When the lease of `userKey` at `address` expires; nil when there is none.
    func leaseExpiry(userKey: String, address: String) throws(StorageError) -> Date?

    /// Forgets leases that expired before `date`.
    func deleteLeases(expiredBefore date: Date) throws(StorageError)

    /// Counts one failed login in one statement, so that instances counting
    /// at once lose none: a record that is stale at `date` (its lockout
    /// over, or its window past) starts again at one failure. Reaching
    /// `policy.allowedFailures` locks logins out until `date + policy.lockout`.
    func recordLoginFailure(userKey: String, address: String, at date: Date,
                            policy: LoginPolicy) throws(StorageError) -> LoginFailures

    /// The stored failed-login record, nil when there is none.
    func loginFailures(userKey: String, address: String) throws(StorageError) -> LoginFailures?

    /// Forgets every failed-login record that is stale at `date` (its
    /// lockout over, or its window past without one): such a record counts
    /// for nothing any more, and a flood of random names would otherwise
    /// leave a row each for good. Returns how many went.
    @discardableResult
    func deleteStaleLoginFailures(at date: Date, policy: LoginPolicy) throws(StorageError) -> Int

    /// Forgets the failed logins of `userKey` at `address`.
    func clearLoginFailures(userKey: String, address: String) throws(StorageError)

    // Access tokens (see AccessTokens): web sessions and bearer tokens.
    // Only a secret's SHA-256 (64 hex digits) is stored, in a unique column;
    // a user's tokens go with the user.

    /// Stores a token of an existing user (`.unknownUser` otherwise), made
    /// at `date` and good until `expires` (nil: until revoked); durable
    /// before it returns. Times are kept to the millisecond, as the
    /// returned record has them. A hash stored already throws
    /// `StorageError.tokenHashTaken`, and nothing is stored.
    func createToken(userID: Int64, secretHash: String, kind: AccessToken.Kind, scopes: String, label: String,
                     at date: Date, expires: Date?) throws(StorageError) -> AccessToken

    /// The token whose secret hashes to `secretHash`, expired or not (the
    /// caller judges expiry); nil when there is none.
    func token(secretHash: String) throws(StorageError) -> AccessToken?

    /// The user's tokens, newest first (in the order they were made,
    /// whatever their times).
    func tokens(ofUserID userID: Int64) throws(StorageError) -> [AccessToken]

    /// Deletes token `id` if it is `userID`'s; false when the user has no
    /// such token (another user's token stays).
    func deleteToken(id: Int64, ofUserID userID: Int64) throws(StorageError) -> Bool

    /// Deletes the user's tokens of `kind` (every kind when nil): logging
    /// out everywhere. Returns how many went.
    @discardableResult
    func deleteTokens(ofUserID userID: Int64, kind: AccessToken.Kind?) throws(StorageError) -> Int

    /// Deletes the tokens that expired before `date` (never those without
    /// an expiry). Returns how many went.
    @discardableResult
    func deleteTokens(expiredBefore date: Date) throws(StorageError) -> Int

    /// The site value stored under `key`; when there is none, `value` is
    /// stored first. The first value stored stays, whatever later callers
    /// pass (with several instances, whichever stored first): for what
    /// must not change once chosen, as the authority of the feeds' ids.
    func siteValue(_ key: String, storingIfAbsent value: String) throws(StorageError) -> String

    /// One cheap round trip to the database, for health checks.
    func ping() throws(StorageError)

    /// Closes the database; later calls fail.
    func close() throws(StorageError)
}

/// Failed logins of one user from one address: how many since
/// `firstFailure`, and until when logins are refused.
public struct LoginFailures: Sendable, Equatable {
    public var failures: Int
    public var firstFailure: Date
    public var lockedUntil: Date?

    public init(failures: Int, firstFailure: Date, lockedUntil: Date?) {
        self.failures = failures
        self.firstFailure = firstFailure
        self.lockedUntil = lockedUntil
    }
}

/// A post just stored.
public struct NewPost: Sendable {
    public var record: PostRecord

    public init(record: PostRecord) {
        self.record = record
    }
}

extension BlogStorage {
    /// `insertPost` with photos by name (no alt text) and no HTML source.
    public func insertPost(userID: Int64, title: String, content: String, weight: Int, place: Place?, photos: [String],
                           at date: Date, layout: PageLayout, token: UUID = UUID()) throws(StorageError) -> NewPost {
        try insertPost(userID: userID, title: title, content: content, contentHTML: nil, weight: weight, place: place,
                       photos: PostPhoto.attachments(photos), at: date, layout: layout, token: token)
    }

    /// `insertPost` of a post with no photos.
    public func insertPost(userID: Int64, title: String, content: String, weight: Int, place: Place?, at date: Date,
                           layout: PageLayout, token: UUID = UUID()) throws(StorageError) -> NewPost {
        try insertPost(userID: userID, title: title, content: content, weight: weight, place: place, photos: [],
                       at: date, layout: layout, token: token)
    }

    /// `insertPost` of a post with no place and no photos.
    public func insertPost(userID: Int64, title: String, content: String, weight: Int, at date: Date,
                           layout: PageLayout, token: UUID = UUID()) throws(StorageError) -> NewPost {
        try insertPost(userID: userID, title: title, content: content, weight: weight, place: nil, photos: [],
                       at: date, layout: layout, token: token)
    }

    /// `insertPost`, for callers that need the record only.
    public func addPost(userID: Int64, title: String, content: String, weight: Int, at date: Date,
                        layout: PageLayout) throws(StorageError) -> PostRecord {
        try insertPost(userID: userID, title: title, content: content, weight: weight, place: nil, photos: [],
                       at: date, layout: layout, token: UUID()).record
    }

    /// Takes back one post, whoever wrote it, leaving no tombstone.
    public func deletePost(id: Int64) throws(StorageError) {
        _ = try removePost(id: id, ofUserID: nil, tombstone: false)
    }

    /// Ids of the user's posts in `pages`, newest first.
    public func postIDs(ofUserID userID: Int64, pages: ClosedRange<Int>) throws(StorageError) -> [Int64] {
        try postStubs(ofUserID: userID, pages: pages).map(\.id)
    }

    /// A user's posts, newest first (for tests and tools).
    public func posts(ofUserID userID: Int64) throws(StorageError) -> [PostRecord] {
        let ids = try postIDs(ofUserID: userID, pages: 1...Int(Int32.max))
        let byID = Dictionary(try posts(ids: ids).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.compactMap { byID[$0] }
    }
}
