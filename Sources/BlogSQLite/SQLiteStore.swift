import Foundation
import BlogModel
import BlogWire
import GRDB

/// Users and posts in SQLite: the source of truth.
///
/// A WAL `DatabasePool` lets readers (such as `blogd users`) run beside the
/// server; `synchronous = FULL` makes every commit reach the disk before
/// the call returns, so an OK reply can promise durability.
public final class SQLiteStore: BlogStorage {
    let pool: DatabasePool
    /// Inserts from many clients share transactions (and fsyncs).
    let commits: GroupCommit
    let gate = StoreGate()
    let pageLocks: PageLockFile
    /// Each recently written blog's newest posts, for the page writer.
    let newest = NewestPostsCache()
    /// What the post paths queue in the Webmention outbox (off until set).
    let mentions = MentionQueueing()
    let heldMentions = HeldMentions()
    /// Whether the post paths queue ActivityPub activities (off until set).
    let activities = ActivityQueueing()
    public let path: String
    let readOnly: Bool

    /// Opens (or, with `create`, creates) the database at `path` and brings
    /// its schema up to date. A read-only store never migrates. `layout`
    /// groups the posts of a database from before page groups existed.
    /// A write that has not started within `deadline` seconds (another
    /// process holding the file, a batch stuck on a slow disk) fails with
    /// `.deadlineExceeded` and is never made.
    public init(path: String, create: Bool = true, readOnly: Bool = false,
                layout: PageLayout? = nil, deadline: Double = 3) throws(StorageError) {
        self.path = path
        self.readOnly = readOnly
        self.pageLocks = PageLockFile(path: path + ".pagelock", deadline: deadline)
        if !create || readOnly {
            guard FileManager.default.fileExists(atPath: path) else { throw .missing(path: path) }
        }
        var config = Configuration()
        config.readonly = readOnly
        config.busyMode = .timeout(deadline)
        config.label = "blogd"
        do {
            if create && !readOnly {
                let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try PrivateFile.make(path)
            }
            pool = try DatabasePool(path: path, configuration: config)
            commits = GroupCommit(pool: pool, deadline: deadline)
            if !readOnly {
                // GRDB picks NORMAL for WAL; NORMAL may lose the last commits
                // on power loss, which would break the promise of an OK reply.
                try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
                // A purged post's text (and a deleted one's) is overwritten
                // where it lay, not left in free pages of the file.
                try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA secure_delete = ON") }
                try Schema.migrator(layout: layout ?? PageLayout(pageSize: 50, weigher: .rawBytes)).migrate(pool)
            }
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
    }

    /// Closes every connection; later calls fail. A writable store first
    /// moves the WAL into the database file and empties it, so that the
    /// file alone, copied once the server has stopped, holds every commit.
    public func close() throws(StorageError) {
        _ = try gate.close { () throws(StorageError) in
            do {
                if !readOnly {
                    // Best effort: a reader in another process (`blogd users`)
                    // may hold part of the WAL; SQLite folds in what it can.
                    _ = try? pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
                }
                try pool.close()
            } catch { throw Self.storageError(error) }
        }
        pageLocks.closeIdle()
    }

    /// Inserts a user; `.nameTaken` when the name exists in any case.
    /// Returns once the commit is on disk.
    public func createUser(name: String, passwordHash: String, at date: Date) throws(StorageError) -> UserRecord {
        let date = date.wholeMilliseconds
        return try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: "INSERT INTO users (name, password_hash, created_at) VALUES (?, ?, ?)",
                               arguments: [name, passwordHash, date])
                return UserRecord(id: db.lastInsertedRowID, name: name, passwordHash: passwordHash, createdAt: date)
            }
        }
    }

    /// Deletes a user (and, by cascade, their posts and access tokens).
    public func deleteUser(id: Int64) throws(StorageError) {
        try gate.pass { () throws(StorageError) in try delete(UserRecord.self, id) }
        newest.forget(id)
    }

    private func delete<Record: TableRecord>(_ type: Record.Type, _ id: Int64) throws(StorageError) {
        do {
            _ = try commits.write { db in try Record.deleteOne(db, key: id) }
        } catch {
            throw Self.storageError(error)
        }
    }

    /// Deletes a post (of `userID`, unless nil) and brings its author's
    /// count and newest post up to date, in one commit.
    public func removePost(id: Int64, ofUserID userID: Int64?, tombstone: Bool) throws(StorageError) -> PostRecord? {
        let now = Date().wholeMilliseconds
        let mentions = self.mentions, activities = self.activities
        return try gate.pass { () throws(StorageError) in
            try write { db in
                guard let post = try PostRecord.fetchOne(db, key: id), userID == nil || post.userID == userID else { return nil }
                if tombstone {
                    try Self.queueMentions(db, mentions.targets(post.content), postID: id, userID: post.userID)
                    try Self.queueActivity(db, activities, userID: post.userID, postID: id, kind: .delete, at: now)
                } else {
                    try Self.dropMentions(db, postID: id)
                    try Self.dropActivities(db, postID: id)
                }
                // Before the post, whose deletion would take them by cascade.
                try db.execute(sql: tombstone ? "DELETE FROM photos WHERE post_id = ?"
                                              : "UPDATE photos SET post_id = NULL WHERE post_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM posts WHERE id = ?", arguments: [id])
                if tombstone {
                    try db.execute(sql: "INSERT INTO deleted_posts (id, user_id, deleted_at) VALUES (?, ?, ?)",
                                   arguments: [id, post.userID, now])
                }
                try db.execute(sql: """
                    UPDATE users SET post_count = post_count - 1, posts_version = posts_version + 1,
                        (last_post_id, last_post_at) = (SELECT id, created_at FROM posts WHERE user_id = ?1
                                                        ORDER BY page DESC, id DESC LIMIT 1)
                    WHERE id = ?1
                    """, arguments: [post.userID])
                return post
            }
        }
    }

    public func deletedPostIDs(ofUserID userID: Int64) throws(StorageError) -> [Int64] {
        try read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM deleted_posts WHERE user_id = ? ORDER BY id", arguments: [userID])
        }
    }

    /// Sets what `edit` says of a post; nil when `userID` has no such post.
    /// Its photos, as they become, still weigh.
    public func editPost(id: Int64, ofUserID userID: Int64, _ edit: PostEdit, weight: Int,
                         photoWeight: @escaping @Sendable ([PostPhoto]) -> Int,
                         at date: Date) throws(StorageError) -> EditedPost? {
        if let photos = edit.photos { try PostPhoto.checkAttachable(photos.map(\.name)) }
        let date = date.wholeMilliseconds
        let mentions = self.mentions, activities = self.activities
        return try gate.pass { () throws(StorageError) in
            try write { db in
                guard let text = try String.fetchOne(db, sql: "SELECT photos FROM posts WHERE id = ? AND user_id = ?",
                                                     arguments: [id, userID]) else { return nil }
                try Self.queueActivity(db, activities, userID: userID, postID: id, kind: .update, at: date)
                // The old links too: a link the edit removed hears of it.
                let old = try String.fetchOne(db, sql: "SELECT content FROM posts WHERE id = ?", arguments: [id]) ?? ""
                try Self.queueMentions(db, mentions.targets(old, edit.content), postID: id, userID: userID)
                let current = PostPhoto.photos(columnText: text)
                var photos = current, removed: [PostPhoto] = []
                if let wanted = edit.photos {
                    let kept = Set(current.map(\.name))
                    let added = wanted.map(\.name).filter { !kept.contains($0) }
                    let fresh = try Self.attachablePhotos(db, names: added, userID: userID)
                    (photos, removed) = PostPhoto.edited(current, to: wanted, adding: fresh)
                    if !removed.isEmpty {
                        try db.execute(sql: "DELETE FROM photos WHERE post_id = ? AND name IN (\(Self.marks(removed.count)))",
                                       arguments: StatementArguments([id]) + StatementArguments(removed.map(\.name)))
                    }
                    if !added.isEmpty { try Self.attach(db, added, to: id) }
                }
                let total = weight + photoWeight(photos)
                var placeColumns = ""
                var arguments: StatementArguments = [edit.title, edit.content, edit.contentHTML, total, date,
                                                     PostPhoto.columnText(photos)]
                if let categories = edit.categories {
                    placeColumns = ", categories = ?"
                    arguments += [Self.categoriesColumn(categories)]
                }
                switch edit.place {
                case .keep: break
                case .set(let place):
                    placeColumns += ", latitude = ?, longitude = ?"
                    arguments += [place.latitude, place.longitude]
                case .remove:
                    placeColumns += ", latitude = NULL, longitude = NULL"
                }
                try db.execute(sql: """
                    UPDATE posts SET title = ?, content = ?, content_html = ?, weight = ?, updated_at = ?, photos = ?
                        \(placeColumns)
                    WHERE id = ? AND user_id = ?
                    """, arguments: arguments + [id, userID])
                guard db.changesCount == 1 else { return nil }
                try db.execute(sql: "UPDATE users SET posts_version = posts_version + 1 WHERE id = ?", arguments: [userID])
                guard let record = try PostRecord.fetchOne(db, key: id) else { return nil }
                try Self.writeTags(db, postID: id, userID: userID, tags: record.tags, replacing: true)
                return EditedPost(record: record, removedPhotos: removed)
            }
        }
    }

    public func setSuspended(userID: Int64, _ suspended: Bool, at date: Date) throws(StorageError) {
        let date = date.wholeMilliseconds
        try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: "UPDATE users SET suspended_at = ? WHERE id = ?",
                               arguments: [suspended ? date : nil, userID])
                guard db.changesCount == 1 else { throw StorageError.unknownUser }
            }
        }
    }

    /// Sets the password hash, and ends the user's leases and web sessions
    /// in the same commit.
    public func updatePassword(userID: Int64, passwordHash: String) throws(StorageError) {
        try gate.pass { () throws(StorageError) in
            try write { db in
                guard let name = try String.fetchOne(db, sql: "SELECT name FROM users WHERE id = ?", arguments: [userID]) else {
                    throw StorageError.unknownUser
                }
                try db.execute(sql: "UPDATE users SET password_hash = ? WHERE id = ?", arguments: [passwordHash, userID])
                // Leases are keyed by the name's lower-case form (`Username.key`).
                try db.execute(sql: "DELETE FROM leases WHERE user_key = ?", arguments: [name.lowercased()])
                try db.execute(sql: "DELETE FROM access_tokens WHERE user_id = ? AND kind = ?",
                               arguments: [userID, AccessToken.Kind.session.rawValue])
            }
        }
    }

    /// The user of that name, compared regardless of case.
    public func user(named name: String) throws(StorageError) -> UserRecord? {
        try read { db in
            try UserRecord.filter(sql: "name = ?", arguments: [name]).fetchOne(db)
        }
    }

    public func user(id: Int64) throws(StorageError) -> UserRecord? {
        try read { db in try UserRecord.fetchOne(db, key: id) }
    }

    /// Inserts a post of an existing user in the page group `layout`
    /// chooses. Returns once the commit is on disk; concurrent inserts
    /// share one commit, and the committer runs them one after another, so
    /// each sees the groups the ones before it filled.
    /// The newest posts come from the writer connection, inside the insert's
    /// transaction: its page cache is never thrown away, while a reader's
    /// is after every commit of another connection (SQLite's WAL), which
    /// made reading them afterwards cost some fifty page reads a post.
    /// `token` is not stored: a commit here is in process, and its outcome
    /// always known. Photos are attached in the insert's savepoint: one
    /// that cannot be rolls the post back alone (`.unknownPhoto`).
    public func insertPost(userID: Int64, title: String, content: String, contentHTML: String?, categories: [String],
                           weight: Int, place: Place?, photos attachments: [PhotoAttachment], at date: Date, layout: PageLayout,
                           token: UUID) throws(StorageError) -> NewPost {
        let names = attachments.map(\.name)
        try PostPhoto.checkAttachable(names)
        // As stored: SQLite keeps milliseconds (rounded), and a page
        // rendered from this record must equal one rendered from the row.
        let date = date.wholeMilliseconds
        let targets = mentions.targets(content)
        let activities = self.activities
        return try gate.pass { () throws(StorageError) in
            try write({ db in
                let photos = PostPhoto.withAlts(try Self.attachablePhotos(db, names: names, userID: userID), attachments)
                let total = weight + layout.weigher.photos(photos)
                let last = try Self.newestGroup(db, userID: userID)
                let page = layout.page(forWeight: total, after: last)
                try db.cachedStatement(sql: """
                    INSERT INTO posts (user_id, title, content, created_at, page, weight, latitude, longitude, photos,
                                       content_html, categories)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [userID, title, content, date, page, total, place?.latitude, place?.longitude,
                                             PostPhoto.columnText(photos), contentHTML, Self.categoriesColumn(categories)])
                let post = PostRecord(id: db.lastInsertedRowID, userID: userID, title: title, content: content,
                                      createdAt: date, page: page, weight: total, place: place, photos: photos,
                                      contentHTML: contentHTML, categories: categories)
                if !photos.isEmpty { try Self.attach(db, names, to: post.id) }
                try Self.queueMentions(db, targets, postID: post.id, userID: userID)
                try Self.queueActivity(db, activities, userID: userID, postID: post.id, kind: .create, at: date)
                try Self.writeTags(db, postID: post.id, userID: userID, tags: post.tags)
                // In the same savepoint: a user suspended (or deleted) by
                // the admin since the service looked gets no post.
                let version = try Int64.fetchOne(db.cachedStatement(sql: """
                    UPDATE users SET post_count = post_count + 1, last_post_id = ?, last_post_at = ?,
                        posts_version = posts_version + 1
                    WHERE id = ? AND suspended_at IS NULL RETURNING posts_version
                    """), arguments: [post.id, date, userID])
                guard let version else { throw StorageError.unknownUser }
                return (NewPost(record: post), version)
            }, committed: { [newest] (post: NewPost, version: Int64) in
                newest.inserted(PostStub(id: post.record.id, page: post.record.page, weight: post.record.weight),
                                of: userID, version: version)
            }).0
        }
    }

    /// The user's newest page group (nil with no posts), from the index.
    private static func newestGroup(_ db: Database, userID: Int64) throws -> PageGroup? {
        try Row.fetchOne(db.cachedStatement(sql: """
            SELECT page, count(*), sum(weight) FROM posts
            WHERE user_id = ?1 AND page = (SELECT max(page) FROM posts WHERE user_id = ?1)
            GROUP BY page
            """), arguments: [userID]).map { PageGroup(page: $0[0], count: $0[1], weight: $0[2]) }
    }

    /// Nothing to settle: every commit's outcome is known to its caller.
    public func claimPostToken(_ token: UUID) throws(StorageError) -> Int64? { nil }

    /// No tokens are kept.
    public func deletePostTokens(before date: Date) throws(StorageError) {}

    /// Runs `work` in the next group commit, mapping the constraints a
    /// caller can cause (a taken name, an unknown user) to their own errors.
    func write<T: Sendable>(_ work: @escaping (Database) throws -> T,
                            committed: ((T) -> Void)? = nil) throws(StorageError) -> T {
        do {
            return try commits.write(work, committed: committed)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw .nameTaken
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
            throw .unknownUser
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            // Another process held the file past the busy timeout: nothing written.
            throw .deadlineExceeded(seconds: commits.deadline)
        } catch let error as StorageError {
            throw error
        } catch {
            throw Self.storageError(error)
        }
    }


    public func pageGroups(ofUserID userID: Int64, limit: Int?) throws(StorageError) -> [PageGroup] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT page, COUNT(*) AS count, SUM(weight) AS weight FROM posts
                WHERE user_id = ? GROUP BY page ORDER BY page DESC LIMIT ?
                """, arguments: [userID, limit ?? -1])
                .map { PageGroup(page: $0["page"], count: $0["count"], weight: $0["weight"]) }
        }
    }

    /// From memory while the blog's `posts_version` is the one the copy
    /// was made at (one row read); otherwise read, and kept.
    public func newestPosts(ofUserID userID: Int64) throws(StorageError) -> [PostStub] {
        let version = try readOne { db in try Self.postsVersion(db, userID: userID) }
        if let version, let posts = newest.posts(of: userID, version: version) { return posts }
        // The version and the posts in one snapshot, or an insert between
        // the two reads would be counted twice.
        return try read { db in
            let version = try Self.postsVersion(db, userID: userID)
            let posts = try Self.newestPosts(db, userID: userID)
            if let version { newest.store(posts, of: userID, version: version) }
            return posts
        }
    }

    static func postsVersion(_ db: Database, userID: Int64) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT posts_version FROM users WHERE id = ?"), arguments: [userID])
    }

    static func newestPosts(_ db: Database, userID: Int64) throws -> [PostStub] {
        let statement = try db.cachedStatement(sql: """
            SELECT id, page, weight, updated_at FROM posts
            WHERE user_id = ?1 AND page >= coalesce(
                (SELECT page FROM posts WHERE user_id = ?1
                 AND page < (SELECT max(page) FROM posts WHERE user_id = ?1) ORDER BY page DESC LIMIT 1),
                (SELECT max(page) FROM posts WHERE user_id = ?1))
            ORDER BY page DESC, id DESC
            """)
        // The two newest pages by three index seeks: a DISTINCT over the
        // user's pages walked every post of the blog.
        var posts: [PostStub] = []
        let rows = try Row.fetchCursor(statement, arguments: [userID])
        while let row = try rows.next() {
            posts.append(stub(row))
        }
        return posts
    }

    private static func stub(_ row: Row) -> PostStub {
        PostStub(id: row[0], page: row[1], weight: row[2], updatedAt: (row[3] as Date?).map(Date.nearestMillisecond))
    }

    public func postStubs(ofUserID userID: Int64, pages: ClosedRange<Int>) throws(StorageError) -> [PostStub] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, page, weight, updated_at FROM posts WHERE user_id = ? AND page BETWEEN ? AND ?
                ORDER BY page DESC, id DESC
                """, arguments: [userID, pages.lowerBound, pages.upperBound]).map(Self.stub)
        }
    }

    /// Two steps along `posts_by_user`, one each way.
    public func adjacentPosts(to post: PostStub, ofUserID userID: Int64) throws(StorageError) -> AdjacentPosts {
        try read { db in
            let older = try Row.fetchOne(db, sql: """
                SELECT id, page, weight, updated_at FROM posts WHERE user_id = ? AND (page, id) < (?, ?)
                ORDER BY page DESC, id DESC LIMIT 1
                """, arguments: [userID, post.page, post.id]).map(Self.stub)
            let newer = try Row.fetchOne(db, sql: """
                SELECT id, page, weight, updated_at FROM posts WHERE user_id = ? AND (page, id) > (?, ?)
                ORDER BY page, id LIMIT 1
                """, arguments: [userID, post.page, post.id]).map(Self.stub)
            return AdjacentPosts(older: older, newer: newer)
        }
    }

    public func recentPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostRecord] {
        try read { db in
            try PostRecord.fetchAll(db, sql: """
                SELECT * FROM posts WHERE user_id = ? ORDER BY page DESC, id DESC LIMIT ?
                """, arguments: [userID, limit])
        }
    }

    public func placedPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostRecord] {
        try read { db in try PostRecord.fetchAll(db, sql: Self.placedPostsQuery, arguments: [userID, limit]) }
    }

    /// Along the partial index `posts_placed` (its `WHERE` repeated, or
    /// SQLite would not use it).
    static let placedPostsQuery = """
        SELECT * FROM posts WHERE user_id = ? AND latitude IS NOT NULL ORDER BY page DESC, id DESC LIMIT ?
        """

    public func postHeadings(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostHeading] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, title, created_at FROM posts WHERE user_id = ? ORDER BY page DESC, id DESC LIMIT ?
                """, arguments: [userID, limit]).map {
                PostHeading(id: $0[0], title: $0[1], createdAt: Date.nearestMillisecond($0[2]))
            }
        }
    }

    public func recentPosts(limit: Int) throws(StorageError) -> [AuthoredPost] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT p.*, u.name AS author FROM posts p JOIN users u ON u.id = p.user_id
                ORDER BY p.id DESC LIMIT ?
                """, arguments: [limit]).map { AuthoredPost(post: try PostRecord(row: $0), author: $0["author"]) }
        }
    }

    public func posts(ids: [Int64]) throws(StorageError) -> [PostRecord] {
        guard !ids.isEmpty else { return [] }
        return try read { db in try PostRecord.fetchAll(db, keys: ids) }
    }

    /// A lock per user in a file beside the database (`PageLockFile`), so
    /// that an admin command run beside the server never writes a user's
    /// pages at the same time as the server does.
    public func withPageLock<T>(userID: Int64, _ body: () throws -> T) throws -> T {
        try pageLocks.withLock(userID: userID, body)
    }

    /// Every user, by id.
    public func allUsers() throws(StorageError) -> [UserRecord] {
        try read { db in try UserRecord.order(sql: "id").fetchAll(db) }
    }

    /// Transactions committed by group commit, and the writes they held.
    public var commitStatistics: (batches: Int, writes: Int) { commits.statistics }

    /// Every user with post count and last post time, by name.
    public func userSummaries() throws(StorageError) -> [UserSummary] {
        try read { db in
            try UserSummary.fetchAll(db, sql: """
                SELECT name, created_at AS registered_at, post_count AS posts, last_post_at,
                       suspended_at IS NOT NULL AS suspended
                FROM users ORDER BY name
                """)
        }
    }

    /// The most recently active blogs, for the index page: `limit` steps
    /// back along `users_by_activity` (NULLs, blogs without posts, come
    /// last), each with its newest post's title by primary key.
    public func blogIndex(limit: Int) throws(StorageError) -> [BlogEntry] {
        try blogIndex(activeSince: nil, limit: limit)
    }

    /// `blogIndex(limit:)` for the blogs whose newest post is from `date`
    /// on: the steps along `users_by_activity` stop at `date`.
    public func blogIndex(activeSince date: Date, limit: Int) throws(StorageError) -> [BlogEntry] {
        try blogIndex(activeSince: Optional(date), limit: limit)
    }

    private func blogIndex(activeSince date: Date?, limit: Int) throws(StorageError) -> [BlogEntry] {
        var arguments: StatementArguments = [limit]
        if let date { arguments = [date, limit] }
        return try readOne { db in
            try Row.fetchAll(db, sql: """
                SELECT u.name, u.post_count, u.last_post_id, p.title, u.last_post_at
                FROM users u LEFT JOIN posts p ON p.id = u.last_post_id
                \(date == nil ? "" : "WHERE u.last_post_at >= ?")
                ORDER BY u.last_post_at DESC, u.id DESC
                LIMIT ?
                """, arguments: arguments).map {
                BlogEntry(name: $0[0], postCount: $0[1], lastPostID: $0[2], lastPostTitle: $0[3],
                          lastPostAt: ($0[4] as Date?).map(Date.nearestMillisecond))
            }
        }
    }

    /// The value of a pragma on the writer connection (for tests and checks).
    public func writerPragma(_ name: String) throws(StorageError) -> String? {
        try gate.pass { () throws(StorageError) in
            do {
                return try pool.writeWithoutTransaction { db in
                    try String.fetchOne(db, sql: "PRAGMA \(name)")
                }
            } catch {
                throw Self.storageError(error)
            }
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(StorageError) -> T {
        try gate.pass { () throws(StorageError) in
            do { return try pool.read(body) } catch { throw Self.storageError(error) }
        }
    }

    /// `read` for one statement: no transaction around it (SQLite gives
    /// a single statement a consistent snapshot by itself), two
    /// statements fewer on the page writer's path.
    func readOne<T>(_ body: (Database) throws -> T) throws(StorageError) -> T {
        try gate.pass { () throws(StorageError) in
            do { return try pool.unsafeRead(body) } catch { throw Self.storageError(error) }
        }
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
        if let error = error as? PrivateFile.Failure { return error.reason }
        // Foundation's file errors print as a dump of their dictionary:
        // the path and the system's own words read better.
        let error = error as NSError
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        let code = underlying?.domain == NSPOSIXErrorDomain ? Int32(underlying!.code) : nil
        let words = code.map { String(cString: strerror($0)) } ?? error.localizedDescription
        if let path = error.userInfo[NSFilePathErrorKey] as? String { return "\(path): \(words)" }
        return words
    }

    /// A GRDB error as a `StorageError` that keeps SQLite's result code.
    static func storageError(_ error: any Error) -> StorageError {
        if let error = error as? StorageError { return error }
        guard let error = error as? DatabaseError else { return .failed("\(error)") }
        return .sqlite(code: error.extendedResultCode.rawValue, message: error.message ?? "\(error.resultCode)")
    }
}
