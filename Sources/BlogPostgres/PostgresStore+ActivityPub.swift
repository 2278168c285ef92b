import BlogModel
import Foundation
import Logging
import PostgresNIO

/// ActivityPub's keys, followers, blocks and fediverse responses in
/// PostgreSQL (migration 18).
extension PostgresStore {
    // MARK: Keys

    public func actorKey(ofUserID userID: Int64) throws(StorageError) -> ActorKey? {
        try rows("SELECT user_id, public_pem, private_pem, created_at FROM actor_keys WHERE user_id = \(userID)",
                 Self.actorKey).first
    }

    public func storeActorKey(userID: Int64, publicPEM: String, privatePEM: String,
                              at date: Date) throws(StorageError) -> ActorKey {
        // The no-op update locks the row kept and makes RETURNING give it:
        // of two inserts at once, the second waits and returns the first's.
        let kept = try rows("""
            INSERT INTO actor_keys (user_id, public_pem, private_pem, created_at)
            VALUES (\(userID), \(publicPEM), \(privatePEM), \(Milliseconds.of(date)))
            ON CONFLICT (user_id) DO UPDATE SET user_id = actor_keys.user_id
            RETURNING user_id, public_pem, private_pem, created_at
            """, Self.actorKey)
        guard let first = kept.first else { throw .failed("the insert returned no row") }
        return first
    }

    @Sendable private static func actorKey(_ row: PostgresRow) throws -> ActorKey {
        let (userID, publicPEM, privatePEM, created) = try row.decode((Int64, String, String, Int64).self)
        return ActorKey(userID: userID, publicPEM: publicPEM, privatePEM: privatePEM, createdAt: Milliseconds.date(created))
    }

    // MARK: Followers

    static let followerColumns =
        "id, user_id, actor_id, inbox, shared_inbox, host, follow_id, state, created_at"

    @Sendable static func follower(_ row: PostgresRow) throws -> Follower {
        let cells = row.makeRandomAccess()
        let state = try cells[7].decode(String.self)
        guard let parsed = Follower.State(rawValue: state) else { throw StorageError.failed("a follower in state \(state)") }
        return Follower(id: try cells[0].decode(Int64.self), userID: try cells[1].decode(Int64.self),
                        actorID: try cells[2].decode(String.self), inbox: try cells[3].decode(String.self),
                        sharedInbox: try cells[4].decode(String?.self), host: try cells[5].decode(String.self),
                        followID: try cells[6].decode(String.self), state: parsed,
                        createdAt: Milliseconds.date(try cells[8].decode(Int64.self)))
    }

    /// The statement that keeps a follower, or updates the one kept
    /// (inboxes, host, Follow id; an accepted follower stays accepted),
    /// returning it as kept: the one statement behind both `addFollower`s.
    static func upsertFollower(userID: Int64, actorID: String, inbox: String, sharedInbox: String?, followID: String,
                               accepted: Bool, at milliseconds: Int64) -> PostgresQuery {
        let state = accepted ? Follower.State.accepted.rawValue : Follower.State.pending.rawValue
        return """
            INSERT INTO followers (user_id, actor_id, inbox, shared_inbox, host, follow_id, state, created_at)
            VALUES (\(userID), \(actorID), \(inbox), \(sharedInbox), \(ActorHost.host(of: actorID)), \(followID),
                    \(state), \(milliseconds))
            ON CONFLICT (user_id, actor_id) DO UPDATE SET
                inbox = excluded.inbox, shared_inbox = excluded.shared_inbox, host = excluded.host,
                follow_id = excluded.follow_id,
                state = CASE WHEN followers.state = 'accepted' THEN 'accepted' ELSE excluded.state END
            RETURNING \(unescaped: followerColumns)
            """
    }

    public func addFollower(userID: Int64, actorID: String, inbox: String, sharedInbox: String?, followID: String,
                            accepted: Bool, at date: Date) throws(StorageError) -> Follower {
        let found = try rows(Self.upsertFollower(userID: userID, actorID: actorID, inbox: inbox, sharedInbox: sharedInbox,
                                                 followID: followID, accepted: accepted, at: Milliseconds.of(date)),
                             Self.follower)
        guard let first = found.first else { throw .failed("the insert returned no row") }
        return first
    }

    public func acceptFollower(userID: Int64, actorID: String) throws(StorageError) -> Follower? {
        try rows("""
            UPDATE followers SET state = 'accepted' WHERE user_id = \(userID) AND actor_id = \(actorID)
            RETURNING \(unescaped: Self.followerColumns)
            """, Self.follower).first
    }

    public func follower(userID: Int64, actorID: String) throws(StorageError) -> Follower? {
        try rows("""
            SELECT \(unescaped: Self.followerColumns) FROM followers WHERE user_id = \(userID) AND actor_id = \(actorID)
            """, Self.follower).first
    }

    public func removeFollower(userID: Int64, actorID: String) throws(StorageError) -> Follower? {
        try rows("""
            DELETE FROM followers WHERE user_id = \(userID) AND actor_id = \(actorID)
            RETURNING \(unescaped: Self.followerColumns)
            """, Self.follower).first
    }

    public func forgetActor(_ actorID: String) throws(StorageError) -> (followers: Int, responses: Int) {
        try transaction { [logger] connection in
            let followers = try await connection.query(
                "DELETE FROM followers WHERE actor_id = \(actorID) RETURNING id", logger: logger).collect().count
            let responses = try await connection.query("""
                DELETE FROM webmentions WHERE actor_id = \(actorID) AND origin = 'activitypub' RETURNING id
                """, logger: logger).collect().count
            return (followers, responses)
        }
    }

    public func followers(ofUserID userID: Int64, state: Follower.State?, offset: Int,
                          limit: Int) throws(StorageError) -> [Follower] {
        try rows("""
            SELECT \(unescaped: Self.followerColumns) FROM followers
            WHERE user_id = \(userID) AND (\(state?.rawValue)::text IS NULL OR state = \(state?.rawValue)::text)
            ORDER BY id DESC LIMIT \(max(0, limit)) OFFSET \(max(0, offset))
            """, Self.follower)
    }

    public func followerCount(ofUserID userID: Int64, state: Follower.State?) throws(StorageError) -> Int {
        Int(try rows("""
            SELECT COUNT(*) FROM followers
            WHERE user_id = \(userID) AND (\(state?.rawValue)::text IS NULL OR state = \(state?.rawValue)::text)
            """) { try $0.decode(Int64.self) }.first ?? 0)
    }

    public func deliveryTargets(ofUserID userID: Int64) throws(StorageError) -> [DeliveryTarget] {
        try withConnection { [logger] connection in
            try await Self.deliveryTargets(connection, userID: userID, logger: logger)
        }
    }

    /// The delivery targets of `userID`'s accepted followers in the order
    /// of their bytes (the "C" collation), those past `point` (a
    /// fan-out's, nil: all), at most `limit` (nil: all): a seek in
    /// `followers_by_target` (migration 24).
    static func deliveryTargets(_ connection: PostgresConnection, userID: Int64, after point: String? = nil,
                                limit: Int? = nil, logger: Logger) async throws -> [DeliveryTarget] {
        var targets: [DeliveryTarget] = []
        for try await inbox in try await connection.query("""
            SELECT DISTINCT coalesce(shared_inbox, inbox) COLLATE "C" AS target FROM followers
            WHERE user_id = \(userID) AND state = 'accepted'
              AND coalesce(shared_inbox, inbox) COLLATE "C" > coalesce(\(point)::text, '')
            ORDER BY target LIMIT \(limit.map { max(0, $0) })::bigint
            """, logger: logger).decode(String.self) {
            targets.append(DeliveryTarget(inbox: inbox, host: ActorHost.deliveryKey(of: inbox)))
        }
        return targets
    }

    public func removeFollowers(ofUserID userID: Int64, deliveryInbox inbox: String) throws(StorageError) -> Int {
        try rows("""
            DELETE FROM followers WHERE user_id = \(userID) AND coalesce(shared_inbox, inbox) = \(inbox) RETURNING id
            """) { _ in () }.count
    }

    // MARK: Blocks

    public func block(userID: Int64, _ target: BlockTarget,
                      at date: Date) throws(StorageError) -> (followers: Int, responses: Int) {
        let at = Milliseconds.of(date)
        return try transaction { [logger] connection in
            let removed = try await Self.block(connection, userID: userID, target, at: at, reject: nil, logger: logger)
            return (removed.followers.count, removed.responses)
        }
    }

    public func unblock(userID: Int64, _ target: BlockTarget) throws(StorageError) -> Bool {
        !(try rows("""
            DELETE FROM actor_blocks WHERE user_id = \(userID) AND kind = \(target.kind) AND value = \(target.value)
            RETURNING user_id
            """) { _ in () }.isEmpty)
    }

    public func blocks(ofUserID userID: Int64) throws(StorageError) -> [ActorBlock] {
        try rows("""
            SELECT kind, value, created_at FROM actor_blocks WHERE user_id = \(userID)
            ORDER BY created_at DESC, kind, value COLLATE "C"
            """) { row in try row.decode((String, String, Int64).self) }.compactMap { kind, value, created in
            BlockTarget(kind: kind, value: value).map {
                ActorBlock(userID: userID, target: $0, createdAt: Milliseconds.date(created))
            }
        }
    }

    public func isBlocked(userID: Int64, actorID: String) throws(StorageError) -> Bool {
        let domains = ActorHost.domains(of: ActorHost.host(of: actorID))
        return try rows("""
            SELECT EXISTS (SELECT 1 FROM actor_blocks WHERE user_id = \(userID) AND
                ((kind = 'actor' AND value = \(actorID)) OR (kind = 'domain' AND value = ANY(\(domains)))))
            """) { try $0.decode(Bool.self) }.first ?? false
    }

    // MARK: Responses

    private static let responseColumns = """
        id, user_id, post_id, source, target, status, approved, \(Milliseconds.select("received_at")), attempts,
        \(Milliseconds.select("next_attempt_at")), \(Milliseconds.select("verified_at")),
        kind, author_name, author_url, author_photo, title, content, origin, actor_id
        """

    public func storeFediverseResponse(_ response: FediverseResponse, at date: Date) throws(StorageError) -> Webmention? {
        let content = response.content.bounded, at = Milliseconds.of(date)
        // Another actor's source is not this one's to change.
        return try rows("""
            INSERT INTO webmentions (user_id, post_id, source, target, status, approved, received_at, next_attempt_at,
                verified_at, kind, author_name, author_url, author_photo, title, content, origin, actor_id, actor_host)
            VALUES (\(response.userID), \(response.postID), \(response.source), \(response.target), 'verified',
                    \(response.approved), timestamptz 'epoch' + \(at) * interval '1 millisecond',
                    timestamptz 'epoch' + \(at) * interval '1 millisecond',
                    timestamptz 'epoch' + \(at) * interval '1 millisecond', \(content.kind.rawValue),
                    \(content.authorName), \(content.authorURL), \(content.authorPhoto), \(content.title),
                    \(content.text), 'activitypub', \(response.actorID), \(ActorHost.host(of: response.actorID)))
            ON CONFLICT (post_id, source) DO UPDATE SET
                status = 'verified', target = excluded.target, attempts = 0, verified_at = excluded.verified_at,
                kind = excluded.kind, author_name = excluded.author_name, author_url = excluded.author_url,
                author_photo = excluded.author_photo, title = excluded.title, content = excluded.content,
                origin = 'activitypub', actor_id = excluded.actor_id, actor_host = excluded.actor_host
            WHERE webmentions.actor_id IS NULL OR webmentions.actor_id = excluded.actor_id
            RETURNING \(unescaped: Self.responseColumns)
            """, Self.response).first
    }

    public func removeFediverseResponses(source: String, actorID: String,
                                         ofUserID userID: Int64?) throws(StorageError) -> [Webmention] {
        // A trashed post's go too, unreturned: no page shows them.
        try rows("""
            WITH gone AS (
                DELETE FROM webmentions
                WHERE origin = 'activitypub' AND source = \(source) AND actor_id = \(actorID)
                  AND (\(userID)::bigint IS NULL OR user_id = \(userID)::bigint)
                RETURNING *)
            SELECT \(unescaped: Self.responseColumns) FROM gone WHERE post_id IS NOT NULL
            """, Self.response)
    }

    public func removeFediverseResponses(ofActorID actorID: String, userID: Int64?) throws(StorageError) -> Int {
        try rows("""
            DELETE FROM webmentions WHERE origin = 'activitypub' AND actor_id = \(actorID)
              AND (\(userID)::bigint IS NULL OR user_id = \(userID)::bigint)
            RETURNING id
            """) { _ in () }.count
    }

    public func fediverseResponses(source: String) throws(StorageError) -> [Webmention] {
        try rows("""
            SELECT \(unescaped: Self.responseColumns) FROM webmentions
            WHERE origin = 'activitypub' AND source = \(source) AND post_id IS NOT NULL ORDER BY id
            """, Self.response)
    }

    @Sendable static func response(_ row: PostgresRow) throws -> Webmention {
        let cells = row.makeRandomAccess()
        func text(_ index: Int) throws -> String { try cells[index].decode(String.self) }
        let (status, kind, origin) = (try text(5), try text(11), try text(17))
        guard let parsedStatus = Webmention.Status(rawValue: status), let parsedKind = Webmention.Kind(rawValue: kind),
              let parsedOrigin = Webmention.Origin(rawValue: origin) else {
            throw StorageError.failed("a webmention of unknown status \(status), kind \(kind) or origin \(origin)")
        }
        return Webmention(id: try cells[0].decode(Int64.self), userID: try cells[1].decode(Int64.self),
                          postID: try cells[2].decode(Int64.self), source: try text(3), target: try text(4),
                          status: parsedStatus, approved: try cells[6].decode(Bool.self),
                          receivedAt: Milliseconds.date(try cells[7].decode(Int64.self)),
                          attempts: Int(try cells[8].decode(Int32.self)),
                          nextAttemptAt: Milliseconds.date(try cells[9].decode(Int64.self)),
                          verifiedAt: try cells[10].decode(Int64?.self).map(Milliseconds.date),
                          content: WebmentionContent(kind: parsedKind, authorName: try text(12), authorURL: try text(13),
                                                     authorPhoto: try text(14), title: try text(15), text: try text(16)),
                          origin: parsedOrigin, actorID: try cells[18].decode(String?.self))
    }
}
