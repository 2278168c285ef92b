import BlogModel
import BlogWire
import Foundation
import PostgresNIO

/// Posts and the page groups they fall into.
extension PostgresStore {
    /// Inserts a post of an existing user in the page group `layout`
    /// chooses, and returns once the commit is durable.
    ///
    /// In one transaction: the user's insert lock (so posts of one user,
    /// from any instance, are stored one after another and each sees the
    /// group the one before filled), the photos to attach (locked, so no
    /// other transaction attaches them too), the user's newest group, the
    /// insert, the photos' attachment and the post's `token`. A photo that
    /// cannot be attached (`.unknownPhoto`) rolls it all back: an answer
    /// from the server, so nothing to settle.
    ///
    /// A commit whose answer is lost (the connection broke, the deadline
    /// passed once the transaction had begun) may or may not have landed:
    /// the token is claimed (`claimPostToken`) in the time left, which
    /// tells which for good; `.outcomeUnknown` when even that fails.
    public func insertPost(userID: Int64, title: String, content: String, contentHTML: String?, categories: [String],
                           weight: Int, place: Place?, photos attachments: [PhotoAttachment], at date: Date, layout: PageLayout,
                           token: UUID) throws(StorageError) -> NewPost {
        let names = attachments.map(\.name)
        try PostPhoto.checkAttachable(names)
        let created = Milliseconds.of(date)
        let key = AdvisoryLock.key(userID: userID)
        let targets = mentions.targets(content)
        let start = ContinuousClock.now
        let attempt = CommitAttempt()
        let inserted: (id: Int64, page: Int, weight: Int, photos: [PostPhoto])
        do {
            inserted = try transaction { [logger, activities] connection in
                guard attempt.begin() else { throw CancellationError() }
                try await connection.query("SELECT pg_advisory_xact_lock(\(AdvisoryLock.insertSpace), \(key))", logger: logger)
                let photos = PostPhoto.withAlts(
                    try await Self.attachablePhotos(connection, names: names, userID: userID, logger: logger), attachments)
                let total = weight + layout.weigher.photos(photos)
                var last: PageGroup?
                for try await (page, count, weight) in try await connection.query("""
                    SELECT page, count(*), sum(weight) FROM posts
                    WHERE user_id = \(userID) AND page = (SELECT max(page) FROM posts WHERE user_id = \(userID))
                    GROUP BY page
                    """, logger: logger).decode((Int, Int, Int).self) {
                    last = PageGroup(page: page, count: count, weight: weight)
                }
                let page = layout.page(forWeight: total, after: last)
                var id: Int64?
                for try await inserted in try await connection.query("""
                    INSERT INTO posts (user_id, title, content, created_at, page, weight, latitude, longitude, photos,
                                       content_html, categories)
                    VALUES (\(userID), \(title), \(content), timestamptz 'epoch' + \(created) * interval '1 millisecond',
                            \(page), \(total), \(place?.latitude), \(place?.longitude), \(PostPhoto.columnText(photos)),
                            \(contentHTML), \(categories.joined(separator: " ")))
                    RETURNING id
                    """, logger: logger).decode(Int64.self) {
                    id = inserted
                }
                guard let id else { throw StorageError.failed("the insert returned no id") }
                if !photos.isEmpty {
                    try await connection.query("UPDATE photos SET post_id = \(id) WHERE name = ANY(\(names))", logger: logger)
                }
                try await Self.queueMentions(connection, targets, postID: id, userID: userID, logger: logger)
                try await Self.queueActivity(connection, activities, userID: userID, postID: id, kind: .create,
                                             at: created, logger: logger)
                try await Self.writeTags(connection, postID: id, userID: userID,
                                         tags: Hashtags.tags(content: content, categories: categories), logger: logger)
                // A user suspended (or deleted) by the admin since the
                // service looked gets no post: the transaction rolls back.
                let counted = try await connection.query("""
                    UPDATE users SET post_count = post_count + 1, last_post_id = \(id),
                        last_post_at = timestamptz 'epoch' + \(created) * interval '1 millisecond'
                    WHERE id = \(userID) AND suspended_at IS NULL RETURNING id
                    """, logger: logger).collect()
                guard !counted.isEmpty else { throw StorageError.unknownUser }
                // Fails (and so does the post) if a claim settled this token first.
                try await connection.query("INSERT INTO post_tokens (token, post_id) VALUES (\(token), \(id))", logger: logger)
                return (id, page, total, photos)
            }
        } catch {
            // Not begun: it never will be. Answered by the server: rolled back.
            guard !attempt.abandon(), PostgresFailure.mayHaveCommitted(error) else {
                throw error == .nameTaken ? .failed("the post's token was claimed") : error
            }
            let left = RequestDeadline.seconds(upTo: deadline - Self.seconds(ContinuousClock.now - start))
            guard left > 0.05, case .success(let settled) = Result(catching: { () throws(StorageError) in
                try settle(token, within: left)
            }) else { throw .outcomeUnknown }
            guard let id = settled else { throw .failed("the commit was lost with the connection; the post was not stored") }
            // Stored, but unread in time: a failure reply, and the take-back makes it true.
            guard let record = try? posts(ids: [id]).first else { throw .outcomeUnknown }
            logger.info("a commit whose answer was lost was found stored", metadata: ["post": "\(id)"])
            return NewPost(record: record)
        }
        let record = PostRecord(id: inserted.id, userID: userID, title: title, content: content,
                                createdAt: Milliseconds.date(created), page: inserted.page, weight: inserted.weight,
                                place: place, photos: inserted.photos, contentHTML: contentHTML, categories: categories)
        return NewPost(record: record)
    }

    /// Settles the insert of `token` for good (see `BlogStorage`): a claim
    /// row makes a commit still under way fail on the token's key, and an
    /// insert holding the key makes the claim wait for its end.
    public func claimPostToken(_ token: UUID) throws(StorageError) -> Int64? {
        try settle(token, within: deadline)
    }

    private func settle(_ token: UUID, within seconds: Double) throws(StorageError) -> Int64? {
        try withConnection(within: seconds) { [logger] connection in
            let claimed = try await connection.query("""
                INSERT INTO post_tokens (token) VALUES (\(token)) ON CONFLICT (token) DO NOTHING RETURNING token
                """, logger: logger).collect()
            guard claimed.isEmpty else { return nil }
            for try await id in try await connection.query(
                "SELECT post_id FROM post_tokens WHERE token = \(token)", logger: logger).decode(Int64?.self) {
                return id
            }
            return nil
        }
    }

    /// Forgets the tokens settled before `date`.
    public func deletePostTokens(before date: Date) throws(StorageError) {
        try execute("""
            DELETE FROM post_tokens WHERE settled_at < timestamptz 'epoch' + \(Milliseconds.of(date)) * interval '1 millisecond'
            """)
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    static let postColumns = """
        id, user_id, title, content, \(Milliseconds.select("created_at")), page, weight, \(Milliseconds.select("updated_at")),
        latitude, longitude, photos, content_html, categories
        """

    static func post(_ row: PostgresRow) throws -> PostRecord {
        let (id, userID, title, content, created, page, weight, updated, latitude, longitude, photos, html, categories) =
            try row.decode((Int64, Int64, String, String, Int64, Int, Int, Int64?, String?, String?, String, String?,
                            String).self)
        return PostRecord(id: id, userID: userID, title: title, content: content, createdAt: Milliseconds.date(created),
                          page: page, weight: weight, updatedAt: updated.map(Milliseconds.date),
                          place: place(latitude, longitude), photos: PostPhoto.photos(columnText: photos),
                          contentHTML: html, categories: categories.split(separator: " ").map(String.init))
    }

    /// The stored place; the columns hold only what `Place` accepted.
    static func place(_ latitude: String?, _ longitude: String?) -> Place? {
        guard let latitude, let longitude else { return nil }
        return try? Place(latitude: latitude, longitude: longitude)
    }

    static func stub(_ row: PostgresRow) throws -> PostStub {
        let (id, page, weight, updated) = try row.decode((Int64, Int, Int, Int64?).self)
        return PostStub(id: id, page: page, weight: weight, updatedAt: updated.map(Milliseconds.date))
    }

    static let stubColumns = "id, page, weight, \(Milliseconds.select("updated_at"))"

    /// Deletes a post (of `userID`, unless nil) and brings its author's
    /// count and newest post up to date, in one transaction.
    /// Its photos go first (deleted, or put back on no post when it is
    /// taken back), as the post's deletion would take them by cascade.
    public func removePost(id: Int64, ofUserID userID: Int64?, tombstone: Bool) throws(StorageError) -> PostRecord? {
        let now = Milliseconds.of(Date())
        return try transaction { [logger, mentions, activities] connection in
            // A photo is its post's author's: `user_id` says whose post it is.
            let owned: PostgresQuery = tombstone
                ? "DELETE FROM photos WHERE post_id = \(id) AND (\(userID)::bigint IS NULL OR user_id = \(userID))"
                : "UPDATE photos SET post_id = NULL WHERE post_id = \(id) AND (\(userID)::bigint IS NULL OR user_id = \(userID))"
            try await connection.query(owned, logger: logger)
            var removed: PostRecord?
            for try await row in try await connection.query("""
                DELETE FROM posts WHERE id = \(id) AND (\(userID)::bigint IS NULL OR user_id = \(userID))
                RETURNING \(unescaped: Self.postColumns)
                """, logger: logger) {
                removed = try Self.post(row)
            }
            guard let removed else { return nil }
            if tombstone {
                try await Self.queueMentions(connection, mentions.targets(removed.content), postID: removed.id,
                                             userID: removed.userID, logger: logger)
                try await Self.queueActivity(connection, activities, userID: removed.userID, postID: removed.id,
                                             kind: .delete, at: now, logger: logger)
            } else {
                try await Self.dropMentions(connection, postID: removed.id, logger: logger)
                try await Self.dropActivities(connection, postID: removed.id, logger: logger)
            }
            if tombstone {
                try await connection.query("""
                    INSERT INTO deleted_posts (id, user_id, deleted_at) VALUES (\(removed.id), \(removed.userID), now())
                    """, logger: logger)
            }
            try await connection.query("""
                UPDATE users SET post_count = post_count - 1,
                    (last_post_id, last_post_at) = (SELECT id, created_at FROM posts WHERE user_id = \(removed.userID)
                                                    ORDER BY page DESC, id DESC LIMIT 1)
                WHERE id = \(removed.userID)
                """, logger: logger)
            return removed
        }
    }

    public func deletedPostIDs(ofUserID userID: Int64) throws(StorageError) -> [Int64] {
        try rows("SELECT id FROM deleted_posts WHERE user_id = \(userID) ORDER BY id") { try $0.decode(Int64.self) }
    }

    /// The post's photos are read first, locked, in the same transaction
    /// (and new ones locked as for an insert): they still weigh.
    public func editPost(id: Int64, ofUserID userID: Int64, _ edit: PostEdit, weight: Int,
                         photoWeight: @escaping @Sendable ([PostPhoto]) -> Int,
                         at date: Date) throws(StorageError) -> EditedPost? {
        if let photos = edit.photos { try PostPhoto.checkAttachable(photos.map(\.name)) }
        let at = Milliseconds.of(date)
        return try transaction { [logger, mentions, activities] connection in
            var text: String?
            for try await found in try await connection.query(
                "SELECT photos FROM posts WHERE id = \(id) AND user_id = \(userID) FOR UPDATE",
                logger: logger).decode(String.self) {
                text = found
            }
            guard let text else { return nil }
            try await Self.queueActivity(connection, activities, userID: userID, postID: id, kind: .update, at: at,
                                         logger: logger)
            // The old links too: a link the edit removed hears of it.
            let old = try await Self.content(connection, postID: id, logger: logger)
            try await Self.queueMentions(connection, mentions.targets(old, edit.content), postID: id, userID: userID,
                                         logger: logger)
            let current = PostPhoto.photos(columnText: text)
            var photos = current, removed: [PostPhoto] = []
            if let wanted = edit.photos {
                let kept = Set(current.map(\.name))
                let added = wanted.map(\.name).filter { !kept.contains($0) }
                let fresh = try await Self.attachablePhotos(connection, names: added, userID: userID, logger: logger)
                (photos, removed) = PostPhoto.edited(current, to: wanted, adding: fresh)
                if !removed.isEmpty {
                    try await connection.query(
                        "DELETE FROM photos WHERE post_id = \(id) AND name = ANY(\(removed.map(\.name)))", logger: logger)
                }
                if !added.isEmpty {
                    try await connection.query("UPDATE photos SET post_id = \(id) WHERE name = ANY(\(added))", logger: logger)
                }
            }
            let total = weight + photoWeight(photos)
            let keepPlace = edit.place == .keep
            var place: Place?
            if case .set(let new) = edit.place { place = new }
            for try await row in try await connection.query("""
                UPDATE posts SET title = \(edit.title), content = \(edit.content), content_html = \(edit.contentHTML),
                    categories = coalesce(\(edit.categories?.joined(separator: " ")), categories),
                    weight = \(total), photos = \(PostPhoto.columnText(photos)),
                    latitude = CASE WHEN \(keepPlace) THEN latitude ELSE \(place?.latitude) END,
                    longitude = CASE WHEN \(keepPlace) THEN longitude ELSE \(place?.longitude) END,
                    updated_at = timestamptz 'epoch' + \(at) * interval '1 millisecond'
                WHERE id = \(id) AND user_id = \(userID)
                RETURNING \(unescaped: Self.postColumns)
                """, logger: logger) {
                let record = try Self.post(row)
                try await Self.writeTags(connection, postID: id, userID: userID, tags: record.tags, replacing: true,
                                         logger: logger)
                return EditedPost(record: record, removedPhotos: removed)
            }
            return nil
        }
    }

    public func pageGroups(ofUserID userID: Int64, limit: Int?) throws(StorageError) -> [PageGroup] {
        try rows("""
            SELECT page, count(*), sum(weight) FROM posts
            WHERE user_id = \(userID) GROUP BY page ORDER BY page DESC LIMIT \(limit)
            """) { row in
            let (page, count, weight) = try row.decode((Int, Int, Int).self)
            return PageGroup(page: page, count: count, weight: weight)
        }
    }

    /// The posts of the user's two newest groups, newest first. Each
    /// `max(page)` is one step down the index, however many posts the user
    /// has.
    public func newestPosts(ofUserID userID: Int64) throws(StorageError) -> [PostStub] {
        try rows("""
            SELECT \(unescaped: Self.stubColumns) FROM posts
            WHERE user_id = \(userID) AND page >= coalesce(
                (SELECT max(page) FROM posts WHERE user_id = \(userID)
                 AND page < (SELECT max(page) FROM posts WHERE user_id = \(userID))),
                (SELECT max(page) FROM posts WHERE user_id = \(userID)))
            ORDER BY page DESC, id DESC
            """, Self.stub)
    }

    public func postStubs(ofUserID userID: Int64, pages: ClosedRange<Int>) throws(StorageError) -> [PostStub] {
        try rows("""
            SELECT \(unescaped: Self.stubColumns) FROM posts
            WHERE user_id = \(userID) AND page BETWEEN \(pages.lowerBound) AND \(pages.upperBound)
            ORDER BY page DESC, id DESC
            """, Self.stub)
    }

    /// Two steps along `posts_by_user`, one each way, in one round trip.
    public func adjacentPosts(to post: PostStub, ofUserID userID: Int64) throws(StorageError) -> AdjacentPosts {
        let found = try rows("""
            (SELECT true, \(unescaped: Self.stubColumns) FROM posts
             WHERE user_id = \(userID) AND (page, id) < (\(post.page), \(post.id)) ORDER BY page DESC, id DESC LIMIT 1)
            UNION ALL
            (SELECT false, \(unescaped: Self.stubColumns) FROM posts
             WHERE user_id = \(userID) AND (page, id) > (\(post.page), \(post.id)) ORDER BY page, id LIMIT 1)
            """) { row in
            let (older, id, page, weight, updated) = try row.decode((Bool, Int64, Int, Int, Int64?).self)
            return (older, PostStub(id: id, page: page, weight: weight, updatedAt: updated.map(Milliseconds.date)))
        }
        return AdjacentPosts(older: found.first { $0.0 }?.1, newer: found.first { !$0.0 }?.1)
    }

    public func recentPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostRecord] {
        try rows("""
            SELECT \(unescaped: Self.postColumns) FROM posts WHERE user_id = \(userID)
            ORDER BY page DESC, id DESC LIMIT \(limit)
            """, Self.post)
    }

    public func placedPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostRecord] {
        try rows("""
            SELECT \(unescaped: Self.postColumns) FROM posts WHERE user_id = \(userID) AND latitude IS NOT NULL
            ORDER BY page DESC, id DESC LIMIT \(limit)
            """, Self.post)
    }

    public func postHeadings(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostHeading] {
        try rows("""
            SELECT id, title, \(unescaped: Milliseconds.select("created_at")) FROM posts WHERE user_id = \(userID)
            ORDER BY page DESC, id DESC LIMIT \(limit)
            """) { row in
            let (id, title, created) = try row.decode((Int64, String, Int64).self)
            return PostHeading(id: id, title: title, createdAt: Milliseconds.date(created))
        }
    }

    public func recentPosts(limit: Int) throws(StorageError) -> [AuthoredPost] {
        try rows("""
            SELECT \(unescaped: Self.postColumns), (SELECT name FROM users WHERE users.id = posts.user_id)
            FROM posts ORDER BY id DESC LIMIT \(limit)
            """, Self.authoredPost)
    }

    public func posts(ids: [Int64]) throws(StorageError) -> [PostRecord] {
        guard !ids.isEmpty else { return [] }
        return try rows("SELECT \(unescaped: Self.postColumns) FROM posts WHERE id = ANY(\(ids))", Self.post)
    }
}
