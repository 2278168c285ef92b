import BlogModel
import Foundation
import GRDB

/// The answers to follows (an `Accept` or `Reject` queued as a delivery
/// in the follower's own change) and the blog's approval setting, in
/// SQLite (migration v21-follow-answers).
extension SQLiteStore {
    /// Queues `body` to the follower's own inbox, due at once, in the
    /// caller's transaction; the same answer already queued stays one.
    static func queueAnswer(_ db: Database, _ kind: DeliveryKind, to follower: Follower, body: String,
                            at milliseconds: Int64) throws {
        try queueOwn(db, kind, userID: follower.userID, about: follower.followID, inbox: follower.inbox, body: body,
                     at: milliseconds)
    }

    /// Queues a delivery that is no post's (`DeliveryKind.ownActivityID`)
    /// to `inbox`, due at once, in the caller's transaction; the same one
    /// already queued stays one.
    static func queueOwn(_ db: Database, _ kind: DeliveryKind, userID: Int64, about: String, inbox: String, body: String,
                         at milliseconds: Int64) throws {
        let activity = DeliveryKind.ownActivityID(userID: userID, kind: kind, about: about)
        try db.cachedStatement(sql: """
            INSERT INTO activity_deliveries (activity_id, user_id, post_id, inbox, host, body, due_at, created_at, kind)
            VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?) ON CONFLICT (activity_id, inbox) DO NOTHING
            """).execute(arguments: [activity, userID, inbox, ActorHost.deliveryKey(of: inbox),
                                     body, milliseconds, milliseconds, kind.rawValue])
    }

    public func addFollower(userID: Int64, actorID: String, inbox: String, sharedInbox: String?, followID: String,
                            accepted: Bool, at date: Date, accept: @escaping FollowAnswerBody) throws(StorageError) -> Follower {
        let at = Self.ms(date)
        return try gate.pass { () throws(StorageError) in
            try write { db in
                let follower = try Self.upsertFollower(db, userID: userID, actorID: actorID, inbox: inbox,
                                                       sharedInbox: sharedInbox, followID: followID, accepted: accepted,
                                                       at: at)
                if follower.state == .accepted { try Self.queueAnswer(db, .accept, to: follower, body: accept(follower), at: at) }
                return follower
            }
        }
    }

    public func acceptFollower(userID: Int64, actorID: String, at date: Date,
                               accept: @escaping FollowAnswerBody) throws(StorageError) -> Follower? {
        let at = Self.ms(date)
        return try gate.pass { () throws(StorageError) in
            try write { db in
                let row = try Row.fetchOne(db, sql: """
                    UPDATE followers SET state = 'accepted' WHERE user_id = ? AND actor_id = ? AND state = 'pending'
                    RETURNING \(Self.followerColumns)
                    """, arguments: [userID, actorID])
                guard let row else { return nil }
                let follower = try Self.follower(row)
                try Self.queueAnswer(db, .accept, to: follower, body: accept(follower), at: at)
                return follower
            }
        }
    }

    public func refuseFollower(userID: Int64, actorID: String, at date: Date,
                               reject: @escaping FollowAnswerBody) throws(StorageError) -> Follower? {
        let at = Self.ms(date)
        return try gate.pass { () throws(StorageError) in
            try write { db in
                let row = try Row.fetchOne(db, sql: """
                    DELETE FROM followers WHERE user_id = ? AND actor_id = ? RETURNING \(Self.followerColumns)
                    """, arguments: [userID, actorID])
                guard let row else { return nil }
                let follower = try Self.follower(row)
                try Self.queueAnswer(db, .reject, to: follower, body: reject(follower), at: at)
                return follower
            }
        }
    }

    public func block(userID: Int64, _ target: BlockTarget, at date: Date,
                      reject: @escaping FollowAnswerBody) throws(StorageError) -> (followers: Int, responses: Int) {
        let at = Self.ms(date)
        return try gate.pass { () throws(StorageError) in
            try write { db in
                let removed = try Self.block(db, userID: userID, target, at: at, reject: reject)
                return (removed.followers.count, removed.responses)
            }
        }
    }

    /// Blocks `target` in the caller's transaction: the followers it covers
    /// go, each with its `reject` queued (none when nil), and its
    /// responses; returns the followers removed (as they were) and how
    /// many responses went.
    static func block(_ db: Database, userID: Int64, _ target: BlockTarget, at: Int64,
                      reject: FollowAnswerBody?) throws -> (followers: [Follower], responses: Int) {
        let kind = target.kind, value = target.value
        try db.execute(sql: """
            INSERT INTO actor_blocks (user_id, kind, value, created_at) VALUES (?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """, arguments: [userID, kind, value, at])
        // A domain covers its subdomains: the host is it, or ends in "." and it.
        let (followers, responses) = kind == "actor"
            ? ("actor_id = ?2", "actor_id = ?2")
            : ("(host = ?2 OR substr(host, -length(?2) - 1) = '.' || ?2)",
               "(actor_host = ?2 OR substr(actor_host, -length(?2) - 1) = '.' || ?2)")
        let removed = try Row.fetchAll(db, sql: """
            DELETE FROM followers WHERE user_id = ?1 AND \(followers) RETURNING \(followerColumns)
            """, arguments: [userID, value]).map(follower)
        for follower in removed {
            if let reject { try queueAnswer(db, .reject, to: follower, body: reject(follower), at: at) }
        }
        try db.execute(sql: "DELETE FROM webmentions WHERE user_id = ?1 AND origin = 'activitypub' AND \(responses)",
                       arguments: [userID, value])
        return (removed, db.changesCount)
    }

    public func approvesFollowersByHand(userID: Int64) throws(StorageError) -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT approve_followers FROM blog_settings WHERE user_id = ?",
                              arguments: [userID]) ?? false
        }
    }

    public func setApprovesFollowersByHand(_ on: Bool, userID: Int64, at date: Date) throws(StorageError) {
        let updated = date.wholeMilliseconds
        try gate.pass { () throws(StorageError) in
            try write { db in
                guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)",
                                        arguments: [userID]) == true
                else { throw StorageError.unknownUser }
                // The other settings stay: a new row has them unset.
                try db.execute(sql: """
                    INSERT INTO blog_settings (user_id, approve_followers, updated_at) VALUES (?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET approve_followers = excluded.approve_followers,
                        updated_at = excluded.updated_at
                    """, arguments: [userID, on ? 1 : 0, updated])
            }
        }
    }
}
