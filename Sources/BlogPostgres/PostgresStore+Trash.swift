import BlogModel
import Foundation
import Logging
import PostgresNIO

/// The trash in PostgreSQL (`trashed_posts`, migration 9): a trashed post's
/// row moves there whole, its photos stay in `photos` on no post, marked
/// with `trashed_post_id`, and so do its responses in `webmentions`
/// (migration 19); its tombstone is in `deleted_posts` all the while.
/// Each change is one transaction.
extension PostgresStore {
    public func trashPost(id: Int64, ofUserID userID: Int64, at date: Date) throws(StorageError) -> PostRecord? {
        let at = Milliseconds.of(date)
        return try transaction { [logger, mentions, activities] connection in
            var post: PostRecord?
            for try await row in try await connection.query("""
                SELECT \(unescaped: Self.postColumns) FROM posts WHERE id = \(id) AND user_id = \(userID) FOR UPDATE
                """, logger: logger) {
                post = try Self.post(row)
            }
            guard let post else { return nil }
            try await Self.queueMentions(connection, mentions.targets(post.content), postID: id, userID: userID,
                                         logger: logger)
            // A Create sent to no one waits out the trash instead: no Delete.
            if try await !Self.createUntold(connection, postID: id, logger: logger) {
                try await Self.queueActivity(connection, activities, userID: userID, postID: id, kind: .delete, at: at,
                                             logger: logger)
            }
            try await connection.query("""
                INSERT INTO trashed_posts (id, user_id, title, content, created_at, page, weight, updated_at,
                                           latitude, longitude, photos, content_html, categories, trashed_at)
                SELECT id, user_id, title, content, created_at, page, weight, updated_at, latitude, longitude, photos,
                       content_html, categories, timestamptz 'epoch' + \(at) * interval '1 millisecond'
                FROM posts WHERE id = \(id)
                """, logger: logger)
            // Off the post before it goes, whose deletion would take them by cascade.
            try await connection.query("""
                UPDATE photos SET post_id = NULL, trashed_post_id = \(id) WHERE post_id = \(id)
                """, logger: logger)
            // Its responses too: hidden while it is in the trash, back on restore.
            try await connection.query("""
                UPDATE webmentions SET post_id = NULL, trashed_post_id = \(id) WHERE post_id = \(id)
                """, logger: logger)
            try await connection.query("DELETE FROM posts WHERE id = \(id)", logger: logger)
            try await connection.query("""
                INSERT INTO deleted_posts (id, user_id, deleted_at)
                VALUES (\(id), \(userID), timestamptz 'epoch' + \(at) * interval '1 millisecond')
                """, logger: logger)
            try await Self.recount(connection, userID: userID, by: -1, logger: logger)
            return post
        }
    }

    public func trashedPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [TrashedPost] {
        try rows("""
            SELECT id, title, \(unescaped: Milliseconds.select("created_at")), \(unescaped: Milliseconds.select("trashed_at"))
            FROM trashed_posts WHERE user_id = \(userID) ORDER BY trashed_at DESC, id DESC LIMIT \(limit)
            """) { row in
            let (id, title, created, trashed) = try row.decode((Int64, String, Int64, Int64).self)
            return TrashedPost(id: id, title: title, createdAt: Milliseconds.date(created),
                               trashedAt: Milliseconds.date(trashed))
        }
    }

    public func restorePost(id: Int64, ofUserID userID: Int64) throws(StorageError) -> PostRecord? {
        try transaction { [logger, mentions] connection in
            // The user's insert lock: the newest group read here stays the
            // newest until the commit, as for an insert.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(\(AdvisoryLock.insertSpace), \(AdvisoryLock.key(userID: userID)))",
                logger: logger)
            var page: Int?
            for try await found in try await connection.query("""
                SELECT page FROM trashed_posts WHERE id = \(id) AND user_id = \(userID) FOR UPDATE
                """, logger: logger).decode(Int.self) {
                page = found
            }
            guard let page else { return nil }
            // Posts written meanwhile may sit in a lower group (this one's
            // emptied): it joins the lowest of theirs, so it never tops a
            // newer post.
            var newer: Int?
            for try await found in try await connection.query(
                "SELECT min(page) FROM posts WHERE user_id = \(userID) AND id > \(id)", logger: logger).decode(Int?.self) {
                newer = found
            }
            try await connection.query("""
                INSERT INTO posts (id, user_id, title, content, created_at, page, weight, updated_at, latitude,
                                   longitude, photos, content_html, categories)
                OVERRIDING SYSTEM VALUE
                SELECT id, user_id, title, content, created_at, \(min(page, newer ?? page)), weight, updated_at,
                       latitude, longitude, photos, content_html, categories
                FROM trashed_posts WHERE id = \(id)
                """, logger: logger)
            try await connection.query("""
                UPDATE photos SET post_id = \(id), trashed_post_id = NULL WHERE trashed_post_id = \(id)
                """, logger: logger)
            try await connection.query("""
                UPDATE webmentions SET post_id = \(id), trashed_post_id = NULL WHERE trashed_post_id = \(id)
                """, logger: logger)
            try await Self.takeBackDelete(connection, postID: id, logger: logger)
            try await connection.query("DELETE FROM trashed_posts WHERE id = \(id)", logger: logger)
            try await connection.query("DELETE FROM deleted_posts WHERE id = \(id)", logger: logger)
            // A suspended user restores nothing: the transaction rolls back.
            try await Self.recount(connection, userID: userID, by: 1, logger: logger)
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.postColumns) FROM posts WHERE id = \(id)", logger: logger) {
                let restored = try Self.post(row)
                try await Self.queueMentions(connection, mentions.targets(restored.content), postID: id, userID: userID,
                                             logger: logger)
                // No Create: the fediverse may have been sent the Delete, and
                // the object id stays; a Create told to no one is still queued
                // (docs/activitypub-delivery.md, "A restored post").
                try await Self.writeTags(connection, postID: id, userID: userID, tags: restored.tags, logger: logger)
                return restored
            }
            return nil
        }
    }

    public func purgeTrash(trashedBefore date: Date, limit: Int) throws(StorageError) -> Int {
        try rows("""
            DELETE FROM trashed_posts WHERE id IN
                (SELECT id FROM trashed_posts
                 WHERE trashed_at < timestamptz 'epoch' + \(Milliseconds.of(date)) * interval '1 millisecond'
                 ORDER BY trashed_at LIMIT \(max(0, limit)))
            RETURNING id
            """) { try $0.decode(Int64.self) }.count
    }

    public func purgeTrashedPost(id: Int64) throws(StorageError) -> Int64? {
        try rows("DELETE FROM trashed_posts WHERE id = \(id) RETURNING user_id") { try $0.decode(Int64.self) }.first
    }

    /// Brings the user's post count and newest post up to date after a post
    /// came or went. Throws `.unknownUser` when a post came to a user who
    /// is suspended (or gone).
    private static func recount(_ connection: PostgresConnection, userID: Int64, by change: Int,
                                logger: Logger) async throws {
        let counted = try await connection.query("""
            UPDATE users SET post_count = post_count + \(change),
                (last_post_id, last_post_at) = (SELECT id, created_at FROM posts WHERE user_id = \(userID)
                                                ORDER BY page DESC, id DESC LIMIT 1)
            WHERE id = \(userID) AND (\(change) < 0 OR suspended_at IS NULL) RETURNING id
            """, logger: logger).collect()
        guard !counted.isEmpty else { throw StorageError.unknownUser }
    }
}
