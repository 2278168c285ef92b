import BlogModel
import Foundation
import GRDB

/// The trash in SQLite (`trashed_posts`, migration v11): a trashed post's
/// row moves there whole, its photos stay in `photos` on no post, marked
/// with `trashed_post_id`, and so do its responses in `webmentions`
/// (v21); its tombstone is in `deleted_posts` all the while. Each change
/// is one group commit.
extension SQLiteStore {
    public func trashPost(id: Int64, ofUserID userID: Int64, at date: Date) throws(StorageError) -> PostRecord? {
        let date = date.wholeMilliseconds
        let mentions = self.mentions, activities = self.activities
        return try gate.pass { () throws(StorageError) in
            try write { db in
                guard let post = try PostRecord.fetchOne(db, key: id), post.userID == userID else { return nil }
                try Self.queueMentions(db, mentions.targets(post.content), postID: id, userID: userID)
                // A Create sent to no one waits out the trash instead: no Delete.
                if try !Self.createUntold(db, postID: id) {
                    try Self.queueActivity(db, activities, userID: userID, postID: id, kind: .delete, at: date)
                }
                try db.execute(sql: """
                    INSERT INTO trashed_posts (id, user_id, title, content, created_at, page, weight, updated_at,
                                               latitude, longitude, photos, content_html, categories, trashed_at)
                    SELECT id, user_id, title, content, created_at, page, weight, updated_at, latitude, longitude, photos, content_html,
                           categories, ?
                    FROM posts WHERE id = ?
                    """, arguments: [date, id])
                // Off the post before it goes, whose deletion would take them by cascade.
                try db.execute(sql: "UPDATE photos SET post_id = NULL, trashed_post_id = ?1 WHERE post_id = ?1",
                               arguments: [id])
                // Its responses too: hidden while it is in the trash, back on restore.
                try db.execute(sql: "UPDATE webmentions SET post_id = NULL, trashed_post_id = ?1 WHERE post_id = ?1",
                               arguments: [id])
                try db.execute(sql: "DELETE FROM posts WHERE id = ?", arguments: [id])
                try db.execute(sql: "INSERT INTO deleted_posts (id, user_id, deleted_at) VALUES (?, ?, ?)",
                               arguments: [id, userID, date])
                try Self.recount(db, userID: userID, by: -1)
                return post
            }
        }
    }

    public func trashedPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [TrashedPost] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, title, created_at, trashed_at FROM trashed_posts WHERE user_id = ?
                ORDER BY trashed_at DESC, id DESC LIMIT ?
                """, arguments: [userID, limit]).map {
                TrashedPost(id: $0[0], title: $0[1], createdAt: Date.nearestMillisecond($0[2]),
                            trashedAt: Date.nearestMillisecond($0[3]))
            }
        }
    }

    public func restorePost(id: Int64, ofUserID userID: Int64) throws(StorageError) -> PostRecord? {
        let mentions = self.mentions
        return try gate.pass { () throws(StorageError) in
            try write { db in
                guard let page = try Int.fetchOne(db, sql: "SELECT page FROM trashed_posts WHERE id = ? AND user_id = ?",
                                                  arguments: [id, userID]) else { return nil }
                // Posts written meanwhile may sit in a lower group (this
                // one's emptied): it joins the lowest of theirs, so it
                // never tops a newer post. Along the user's index.
                let newer = try Int.fetchOne(db, sql: "SELECT min(page) FROM posts WHERE user_id = ? AND id > ?",
                                             arguments: [userID, id])
                try db.execute(sql: """
                    INSERT INTO posts (id, user_id, title, content, created_at, page, weight, updated_at, latitude,
                                       longitude, photos, content_html, categories)
                    SELECT id, user_id, title, content, created_at, ?, weight, updated_at, latitude, longitude, photos,
                           content_html, categories
                    FROM trashed_posts WHERE id = ?
                    """, arguments: [min(page, newer ?? page), id])
                try db.execute(sql: "UPDATE photos SET post_id = ?1, trashed_post_id = NULL WHERE trashed_post_id = ?1",
                               arguments: [id])
                try db.execute(sql: "UPDATE webmentions SET post_id = ?1, trashed_post_id = NULL WHERE trashed_post_id = ?1",
                               arguments: [id])
                try Self.takeBackDelete(db, postID: id)
                try db.execute(sql: "DELETE FROM trashed_posts WHERE id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM deleted_posts WHERE id = ?", arguments: [id])
                // A suspended user restores nothing: the savepoint rolls back.
                try Self.recount(db, userID: userID, by: 1)
                guard let restored = try PostRecord.fetchOne(db, key: id) else { return nil }
                try Self.queueMentions(db, mentions.targets(restored.content), postID: id, userID: userID)
                // No Create: the fediverse may have been sent the Delete, and
                // the object id stays; a Create told to no one is still queued
                // (docs/activitypub-delivery.md, "A restored post").
                try Self.writeTags(db, postID: id, userID: userID, tags: restored.tags)
                return restored
            }
        }
    }

    public func purgeTrash(trashedBefore date: Date, limit: Int) throws(StorageError) -> Int {
        let date = date.wholeMilliseconds
        return try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: """
                    DELETE FROM trashed_posts WHERE id IN
                        (SELECT id FROM trashed_posts WHERE trashed_at < ? ORDER BY trashed_at LIMIT ?)
                    """, arguments: [date, max(0, limit)])
                return db.changesCount
            }
        }
    }

    public func purgeTrashedPost(id: Int64) throws(StorageError) -> Int64? {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try Int64.fetchOne(db, sql: "DELETE FROM trashed_posts WHERE id = ? RETURNING user_id", arguments: [id])
            }
        }
    }

    /// Brings the user's post count, newest post and `posts_version` up to
    /// date after a post came or went. Throws `.unknownUser` when a post
    /// came to a user who is suspended (or gone).
    private static func recount(_ db: Database, userID: Int64, by change: Int) throws {
        try db.execute(sql: """
            UPDATE users SET post_count = post_count + ?2, posts_version = posts_version + 1,
                (last_post_id, last_post_at) = (SELECT id, created_at FROM posts WHERE user_id = ?1
                                                ORDER BY page DESC, id DESC LIMIT 1)
            WHERE id = ?1 AND (?2 < 0 OR suspended_at IS NULL)
            """, arguments: [userID, change])
        guard db.changesCount == 1 else { throw StorageError.unknownUser }
    }
}
