import BlogModel
import Foundation
import Logging
import PostgresNIO

/// The answers to follows (an `Accept` or `Reject` queued as a delivery
/// in the follower's own transaction) and the blog's approval setting, in
/// PostgreSQL (migration 19).
extension PostgresStore {
    /// The one follower `query` returns (nil when none).
    private static func oneFollower(_ connection: PostgresConnection, _ query: PostgresQuery,
                                    logger: Logger) async throws -> Follower? {
        for try await row in try await connection.query(query, logger: logger) { return try follower(row) }
        return nil
    }

    /// Queues `body` to the follower's own inbox, due at once, in the
    /// caller's transaction; the same answer already queued stays one.
    static func queueAnswer(_ connection: PostgresConnection, _ kind: DeliveryKind, to follower: Follower, body: String,
                            at milliseconds: Int64, logger: Logger) async throws {
        try await queueOwn(connection, kind, userID: follower.userID, about: follower.followID, inbox: follower.inbox,
                           body: body, at: milliseconds, logger: logger)
    }

    /// Queues a delivery that is no post's (`DeliveryKind.ownActivityID`)
    /// to `inbox`, due at once, in the caller's transaction; the same one
    /// already queued stays one.
    static func queueOwn(_ connection: PostgresConnection, _ kind: DeliveryKind, userID: Int64, about: String,
                         inbox: String, body: String, at milliseconds: Int64, logger: Logger) async throws {
        let activity = DeliveryKind.ownActivityID(userID: userID, kind: kind, about: about)
        try await connection.query("""
            INSERT INTO activity_deliveries (activity_id, user_id, post_id, inbox, host, body, due_at, created_at, kind)
            VALUES (\(activity), \(userID), 0, \(inbox), \(ActorHost.deliveryKey(of: inbox)),
                    \(body), \(milliseconds), \(milliseconds), \(kind.rawValue))
            ON CONFLICT (activity_id, inbox) DO NOTHING
            """, logger: logger)
    }

    public func addFollower(userID: Int64, actorID: String, inbox: String, sharedInbox: String?, followID: String,
                            accepted: Bool, at date: Date, accept: @escaping FollowAnswerBody) throws(StorageError) -> Follower {
        let at = Milliseconds.of(date)
        let query = Self.upsertFollower(userID: userID, actorID: actorID, inbox: inbox, sharedInbox: sharedInbox,
                                        followID: followID, accepted: accepted, at: at)
        return try transaction { [logger] connection in
            guard let follower = try await Self.oneFollower(connection, query, logger: logger)
            else { throw StorageError.failed("the insert returned no row") }
            if follower.state == .accepted {
                try await Self.queueAnswer(connection, .accept, to: follower, body: accept(follower), at: at, logger: logger)
            }
            return follower
        }
    }

    public func acceptFollower(userID: Int64, actorID: String, at date: Date,
                               accept: @escaping FollowAnswerBody) throws(StorageError) -> Follower? {
        let at = Milliseconds.of(date)
        return try transaction { [logger] connection in
            guard let follower = try await Self.oneFollower(connection, """
                UPDATE followers SET state = 'accepted'
                WHERE user_id = \(userID) AND actor_id = \(actorID) AND state = 'pending'
                RETURNING \(unescaped: Self.followerColumns)
                """, logger: logger)
            else { return nil }
            try await Self.queueAnswer(connection, .accept, to: follower, body: accept(follower), at: at, logger: logger)
            return follower
        }
    }

    public func refuseFollower(userID: Int64, actorID: String, at date: Date,
                               reject: @escaping FollowAnswerBody) throws(StorageError) -> Follower? {
        let at = Milliseconds.of(date)
        return try transaction { [logger] connection in
            guard let follower = try await Self.oneFollower(connection, """
                DELETE FROM followers WHERE user_id = \(userID) AND actor_id = \(actorID)
                RETURNING \(unescaped: Self.followerColumns)
                """, logger: logger)
            else { return nil }
            try await Self.queueAnswer(connection, .reject, to: follower, body: reject(follower), at: at, logger: logger)
            return follower
        }
    }

    public func block(userID: Int64, _ target: BlockTarget, at date: Date,
                      reject: @escaping FollowAnswerBody) throws(StorageError) -> (followers: Int, responses: Int) {
        let at = Milliseconds.of(date)
        return try transaction { [logger] connection in
            let removed = try await Self.block(connection, userID: userID, target, at: at, reject: reject, logger: logger)
            return (removed.followers.count, removed.responses)
        }
    }

    /// Blocks `target` in the caller's transaction: the followers it covers
    /// go, each with its `reject` queued (none when nil), and its
    /// responses; returns the followers removed (as they were) and how
    /// many responses went.
    static func block(_ connection: PostgresConnection, userID: Int64, _ target: BlockTarget, at: Int64,
                      reject: FollowAnswerBody?, logger: Logger) async throws -> (followers: [Follower], responses: Int) {
        let kind = target.kind, value = target.value
        try await connection.query("""
            INSERT INTO actor_blocks (user_id, kind, value, created_at) VALUES (\(userID), \(kind), \(value), \(at))
            ON CONFLICT DO NOTHING
            """, logger: logger)
        // A domain covers its subdomains: the host is it, or ends in "." and it.
        let followers: PostgresQuery = kind == "actor"
            ? """
              DELETE FROM followers WHERE user_id = \(userID) AND actor_id = \(value)
              RETURNING \(unescaped: followerColumns)
              """
            : """
              DELETE FROM followers WHERE user_id = \(userID)
                  AND (host = \(value) OR right(host, char_length(\(value)) + 1) = '.' || \(value))
              RETURNING \(unescaped: followerColumns)
              """
        let responses: PostgresQuery = kind == "actor"
            ? """
              DELETE FROM webmentions WHERE user_id = \(userID) AND origin = 'activitypub' AND actor_id = \(value)
              RETURNING id
              """
            : """
              DELETE FROM webmentions WHERE user_id = \(userID) AND origin = 'activitypub'
                  AND (actor_host = \(value) OR right(actor_host, char_length(\(value)) + 1) = '.' || \(value))
              RETURNING id
              """
        var removed: [Follower] = []
        for try await row in try await connection.query(followers, logger: logger) {
            removed.append(try follower(row))
        }
        for follower in removed {
            guard let reject else { break }
            try await queueAnswer(connection, .reject, to: follower, body: reject(follower), at: at, logger: logger)
        }
        let removedResponses = try await connection.query(responses, logger: logger).collect().count
        return (removed, removedResponses)
    }

    public func approvesFollowersByHand(userID: Int64) throws(StorageError) -> Bool {
        try rows("SELECT approve_followers FROM blog_settings WHERE user_id = \(userID)") { try $0.decode(Bool.self) }
            .first ?? false
    }

    public func setApprovesFollowersByHand(_ on: Bool, userID: Int64, at date: Date) throws(StorageError) {
        // One statement; a user that is not there fails the foreign key
        // (`.unknownUser`). The other settings stay: a new row has them unset.
        try execute("""
            INSERT INTO blog_settings (user_id, approve_followers, updated_at)
            VALUES (\(userID), \(on), timestamptz 'epoch' + \(Milliseconds.of(date)) * interval '1 millisecond')
            ON CONFLICT (user_id) DO UPDATE SET approve_followers = excluded.approve_followers,
                updated_at = excluded.updated_at
            """)
    }
}
