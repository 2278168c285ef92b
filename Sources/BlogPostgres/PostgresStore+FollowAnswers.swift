import BlogModel
import Foundation
import Logging
import PostgresNIO

/// The answers to follows (an `Accept` or `Reject` queued as a delivery
/// in the follower's own transaction) and the blog's approval setting, in
/// PostgreSQL (migration 19).
extension PostgresStore {
    private static let answerFollowerColumns =
        "id, user_id, actor_id, inbox, shared_inbox, host, follow_id, state, created_at"

    @Sendable private static func answerFollower(_ row: PostgresRow) throws -> Follower {
        let cells = row.makeRandomAccess()
        let state = try cells[7].decode(String.self)
        guard let parsed = Follower.State(rawValue: state) else { throw StorageError.failed("a follower in state \(state)") }
        return Follower(id: try cells[0].decode(Int64.self), userID: try cells[1].decode(Int64.self),
                        actorID: try cells[2].decode(String.self), inbox: try cells[3].decode(String.self),
                        sharedInbox: try cells[4].decode(String?.self), host: try cells[5].decode(String.self),
                        followID: try cells[6].decode(String.self), state: parsed,
                        createdAt: Milliseconds.date(try cells[8].decode(Int64.self)))
    }

    /// The one follower `query` returns (nil when none).
    private static func oneFollower(_ connection: PostgresConnection, _ query: PostgresQuery,
                                    logger: Logger) async throws -> Follower? {
        for try await row in try await connection.query(query, logger: logger) { return try answerFollower(row) }
        return nil
    }

    /// Queues `body` to the follower's own inbox, due at once, in the
    /// caller's transaction; the same answer already queued stays one.
    static func queueAnswer(_ connection: PostgresConnection, _ kind: DeliveryKind, to follower: Follower, body: String,
                            at milliseconds: Int64, logger: Logger) async throws {
        let activity = DeliveryKind.answerActivityID(userID: follower.userID, kind: kind, followID: follower.followID)
        try await connection.query("""
            INSERT INTO activity_deliveries (activity_id, user_id, post_id, inbox, host, body, due_at, created_at, kind)
            VALUES (\(activity), \(follower.userID), 0, \(follower.inbox), \(ActorHost.authority(of: follower.inbox)),
                    \(body), \(milliseconds), \(milliseconds), \(kind.rawValue))
            ON CONFLICT (activity_id, inbox) DO NOTHING
            """, logger: logger)
    }

    public func addFollower(userID: Int64, actorID: String, inbox: String, sharedInbox: String?, followID: String,
                            accepted: Bool, at date: Date, accept: @escaping FollowAnswerBody) throws(StorageError) -> Follower {
        let state = accepted ? Follower.State.accepted.rawValue : Follower.State.pending.rawValue
        let at = Milliseconds.of(date), host = ActorHost.host(of: actorID)
        return try transaction { [logger] connection in
            guard let follower = try await Self.oneFollower(connection, """
                INSERT INTO followers (user_id, actor_id, inbox, shared_inbox, host, follow_id, state, created_at)
                VALUES (\(userID), \(actorID), \(inbox), \(sharedInbox), \(host), \(followID), \(state), \(at))
                ON CONFLICT (user_id, actor_id) DO UPDATE SET
                    inbox = excluded.inbox, shared_inbox = excluded.shared_inbox, host = excluded.host,
                    follow_id = excluded.follow_id,
                    state = CASE WHEN followers.state = 'accepted' THEN 'accepted' ELSE excluded.state END
                RETURNING \(unescaped: Self.answerFollowerColumns)
                """, logger: logger)
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
                RETURNING \(unescaped: Self.answerFollowerColumns)
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
                RETURNING \(unescaped: Self.answerFollowerColumns)
                """, logger: logger)
            else { return nil }
            try await Self.queueAnswer(connection, .reject, to: follower, body: reject(follower), at: at, logger: logger)
            return follower
        }
    }

    public func block(userID: Int64, _ target: BlockTarget, at date: Date,
                      reject: @escaping FollowAnswerBody) throws(StorageError) -> (followers: Int, responses: Int) {
        let kind = target.kind, value = target.value, at = Milliseconds.of(date)
        return try transaction { [logger] connection in
            try await connection.query("""
                INSERT INTO actor_blocks (user_id, kind, value, created_at) VALUES (\(userID), \(kind), \(value), \(at))
                ON CONFLICT DO NOTHING
                """, logger: logger)
            // A domain covers its subdomains: the host is it, or ends in "." and it.
            let followers: PostgresQuery = kind == "actor"
                ? """
                  DELETE FROM followers WHERE user_id = \(userID) AND actor_id = \(value)
                  RETURNING \(unescaped: Self.answerFollowerColumns)
                  """
                : """
                  DELETE FROM followers WHERE user_id = \(userID)
                      AND (host = \(value) OR right(host, char_length(\(value)) + 1) = '.' || \(value))
                  RETURNING \(unescaped: Self.answerFollowerColumns)
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
                removed.append(try Self.answerFollower(row))
            }
            for follower in removed {
                try await Self.queueAnswer(connection, .reject, to: follower, body: reject(follower), at: at, logger: logger)
            }
            let removedResponses = try await connection.query(responses, logger: logger).collect().count
            return (removed.count, removedResponses)
        }
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
