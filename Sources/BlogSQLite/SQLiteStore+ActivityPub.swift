import BlogModel
import Foundation
import GRDB

/// ActivityPub's keys, followers, blocks and fediverse responses in SQLite
/// (migration v20-activitypub).
extension SQLiteStore {
    // MARK: Keys

    public func actorKey(ofUserID userID: Int64) throws(StorageError) -> ActorKey? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT user_id, public_pem, private_pem, created_at FROM actor_keys WHERE user_id = ?",
                             arguments: [userID]).map(Self.actorKey)
        }
    }

    public func storeActorKey(userID: Int64, publicPEM: String, privatePEM: String,
                              at date: Date) throws(StorageError) -> ActorKey {
        let at = Self.ms(date)
        return try gate.pass { () throws(StorageError) in
            try write { db in
                // The no-op update makes RETURNING give the row kept.
                let row = try Row.fetchOne(db, sql: """
                    INSERT INTO actor_keys (user_id, public_pem, private_pem, created_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET user_id = actor_keys.user_id
                    RETURNING user_id, public_pem, private_pem, created_at
                    """, arguments: [userID, publicPEM, privatePEM, at])
                guard let row else { throw StorageError.failed("the insert returned no row") }
                return Self.actorKey(row)
            }
        }
    }

    private static func actorKey(_ row: Row) -> ActorKey {
        ActorKey(userID: row[0], publicPEM: row[1], privatePEM: row[2], createdAt: date(row[3]))
    }

    // MARK: Followers

    static let followerColumns =
        "id, user_id, actor_id, inbox, shared_inbox, host, follow_id, state, created_at"

    static func follower(_ row: Row) throws -> Follower {
        let state: String = row[7]
        guard let parsed = Follower.State(rawValue: state) else { throw StorageError.failed("a follower in state \(state)") }
        return Follower(id: row[0], userID: row[1], actorID: row[2], inbox: row[3], sharedInbox: row[4], host: row[5],
                        followID: row[6], state: parsed, createdAt: date(row[8]))
    }

    /// Keeps a follower in the caller's transaction, or updates the one
    /// kept (inboxes, host, Follow id; an accepted follower stays
    /// accepted), and returns it as kept: the one statement behind both
    /// `addFollower`s.
    static func upsertFollower(_ db: Database, userID: Int64, actorID: String, inbox: String, sharedInbox: String?,
                               followID: String, accepted: Bool, at milliseconds: Int64) throws -> Follower {
        let state = accepted ? Follower.State.accepted : .pending
        let row = try Row.fetchOne(db, sql: """
            INSERT INTO followers (user_id, actor_id, inbox, shared_inbox, host, follow_id, state, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id, actor_id) DO UPDATE SET
                inbox = excluded.inbox, shared_inbox = excluded.shared_inbox, host = excluded.host,
                follow_id = excluded.follow_id,
                state = CASE WHEN followers.state = 'accepted' THEN 'accepted' ELSE excluded.state END
            RETURNING \(followerColumns)
            """, arguments: [userID, actorID, inbox, sharedInbox, ActorHost.host(of: actorID), followID, state.rawValue,
                             milliseconds])
        guard let row else { throw StorageError.failed("the insert returned no row") }
        return try follower(row)
    }

    public func addFollower(userID: Int64, actorID: String, inbox: String, sharedInbox: String?, followID: String,
                            accepted: Bool, at date: Date) throws(StorageError) -> Follower {
        let at = Self.ms(date)
        return try gate.pass { () throws(StorageError) in
            try write { db in
                try Self.upsertFollower(db, userID: userID, actorID: actorID, inbox: inbox, sharedInbox: sharedInbox,
                                        followID: followID, accepted: accepted, at: at)
            }
        }
    }

    public func acceptFollower(userID: Int64, actorID: String) throws(StorageError) -> Follower? {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try Row.fetchOne(db, sql: """
                    UPDATE followers SET state = 'accepted' WHERE user_id = ? AND actor_id = ?
                    RETURNING \(Self.followerColumns)
                    """, arguments: [userID, actorID]).map(Self.follower)
            }
        }
    }

    public func follower(userID: Int64, actorID: String) throws(StorageError) -> Follower? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.followerColumns) FROM followers WHERE user_id = ? AND actor_id = ?",
                             arguments: [userID, actorID]).map(Self.follower)
        }
    }

    public func removeFollower(userID: Int64, actorID: String) throws(StorageError) -> Follower? {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try Row.fetchOne(db, sql: """
                    DELETE FROM followers WHERE user_id = ? AND actor_id = ? RETURNING \(Self.followerColumns)
                    """, arguments: [userID, actorID]).map(Self.follower)
            }
        }
    }

    public func forgetActor(_ actorID: String) throws(StorageError) -> (followers: Int, responses: Int) {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: "DELETE FROM followers WHERE actor_id = ?", arguments: [actorID])
                let followers = db.changesCount
                try db.execute(sql: "DELETE FROM webmentions WHERE actor_id = ? AND origin = 'activitypub'",
                               arguments: [actorID])
                return (followers, db.changesCount)
            }
        }
    }

    public func followers(ofUserID userID: Int64, state: Follower.State?, offset: Int,
                          limit: Int) throws(StorageError) -> [Follower] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.followerColumns) FROM followers WHERE user_id = ?1 AND (?2 IS NULL OR state = ?2)
                ORDER BY id DESC LIMIT ?3 OFFSET ?4
                """, arguments: [userID, state?.rawValue, max(0, limit), max(0, offset)]).map(Self.follower)
        }
    }

    public func followerCount(ofUserID userID: Int64, state: Follower.State?) throws(StorageError) -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM followers WHERE user_id = ?1 AND (?2 IS NULL OR state = ?2)",
                             arguments: [userID, state?.rawValue]) ?? 0
        }
    }

    public func deliveryTargets(ofUserID userID: Int64) throws(StorageError) -> [DeliveryTarget] {
        try read { db in try Self.deliveryTargets(db, userID: userID) }
    }

    /// `deliveryTargets`' query: a seek in `followers_by_target` (v26),
    /// in its order. A fan-out step reads its chunk inside the writer's
    /// turn, where a scan and a sort of 10,000 followers took 2 ms.
    static let deliveryTargetsQuery = """
        SELECT DISTINCT coalesce(shared_inbox, inbox) AS target FROM followers
        WHERE user_id = ?1 AND state = 'accepted' AND coalesce(shared_inbox, inbox) > coalesce(?2, '')
        ORDER BY target LIMIT ?3
        """

    /// The delivery targets of `userID`'s accepted followers in the
    /// order of their bytes (BINARY), those past `point` (a fan-out's,
    /// nil: all), at most `limit` (nil: all).
    static func deliveryTargets(_ db: Database, userID: Int64, after point: String? = nil,
                                limit: Int? = nil) throws -> [DeliveryTarget] {
        try String.fetchAll(db, sql: deliveryTargetsQuery, arguments: [userID, point, limit.map { max(0, $0) } ?? -1])
            .map { DeliveryTarget(inbox: $0, host: ActorHost.deliveryKey(of: $0)) }
    }

    public func removeFollowers(ofUserID userID: Int64, deliveryInbox inbox: String) throws(StorageError) -> Int {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: "DELETE FROM followers WHERE user_id = ? AND coalesce(shared_inbox, inbox) = ?",
                               arguments: [userID, inbox])
                return db.changesCount
            }
        }
    }

    // MARK: Blocks

    public func block(userID: Int64, _ target: BlockTarget,
                      at date: Date) throws(StorageError) -> (followers: Int, responses: Int) {
        let at = Self.ms(date)
        return try gate.pass { () throws(StorageError) in
            try write { db in
                let removed = try Self.block(db, userID: userID, target, at: at, reject: nil)
                return (removed.followers.count, removed.responses)
            }
        }
    }

    public func unblock(userID: Int64, _ target: BlockTarget) throws(StorageError) -> Bool {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: "DELETE FROM actor_blocks WHERE user_id = ? AND kind = ? AND value = ?",
                               arguments: [userID, target.kind, target.value])
                return db.changesCount > 0
            }
        }
    }

    public func blocks(ofUserID userID: Int64) throws(StorageError) -> [ActorBlock] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT kind, value, created_at FROM actor_blocks WHERE user_id = ? ORDER BY created_at DESC, kind, value
                """, arguments: [userID]).compactMap { row in
                BlockTarget(kind: row[0], value: row[1]).map { ActorBlock(userID: userID, target: $0, createdAt: Self.date(row[2])) }
            }
        }
    }

    public func isBlocked(userID: Int64, actorID: String) throws(StorageError) -> Bool {
        let domains = ActorHost.domains(of: ActorHost.host(of: actorID))
        return try read { db in
            try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM actor_blocks WHERE user_id = ? AND
                    ((kind = 'actor' AND value = ?) OR (kind = 'domain' AND value IN (SELECT value FROM json_each(?)))))
                """, arguments: [userID, actorID, Self.jsonArray(domains)]) ?? false
        }
    }

    static func jsonArray(_ values: [String]) -> String {
        (try? String(decoding: JSONEncoder().encode(values), as: UTF8.self)) ?? "[]"
    }

    // MARK: Responses

    private static let responseColumns = """
        id, user_id, post_id, source, target, status, approved, received_at, attempts, next_attempt_at, verified_at,
        kind, author_name, author_url, author_photo, title, content, origin, actor_id
        """

    public func storeFediverseResponse(_ response: FediverseResponse, at date: Date) throws(StorageError) -> Webmention? {
        let date = date.wholeMilliseconds, content = response.content.bounded
        return try gate.pass { () throws(StorageError) in
            try write { db in
                // Another actor's source is not this one's to change.
                try Row.fetchOne(db, sql: """
                    INSERT INTO webmentions (user_id, post_id, source, target, status, approved, received_at,
                        next_attempt_at, verified_at, kind, author_name, author_url, author_photo, title, content,
                        origin, actor_id, actor_host)
                    VALUES (?1, ?2, ?3, ?4, 'verified', ?5, ?6, ?6, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 'activitypub', ?13, ?14)
                    ON CONFLICT (post_id, source) DO UPDATE SET
                        status = 'verified', target = excluded.target, attempts = 0, verified_at = excluded.verified_at,
                        kind = excluded.kind, author_name = excluded.author_name, author_url = excluded.author_url,
                        author_photo = excluded.author_photo, title = excluded.title, content = excluded.content,
                        origin = 'activitypub', actor_id = excluded.actor_id, actor_host = excluded.actor_host
                    WHERE webmentions.actor_id IS NULL OR webmentions.actor_id = excluded.actor_id
                    RETURNING \(Self.responseColumns)
                    """, arguments: [response.userID, response.postID, response.source, response.target, response.approved,
                                     date, content.kind.rawValue, content.authorName, content.authorURL,
                                     content.authorPhoto, content.title, content.text, response.actorID,
                                     ActorHost.host(of: response.actorID)]).map(Self.response)
            }
        }
    }

    public func removeFediverseResponses(source: String, actorID: String,
                                         ofUserID userID: Int64?) throws(StorageError) -> [Webmention] {
        try gate.pass { () throws(StorageError) in
            try write { db in
                // A trashed post's go too, unreturned: no page shows them.
                try db.execute(sql: """
                    DELETE FROM webmentions WHERE origin = 'activitypub' AND source = ?1 AND actor_id = ?2
                        AND (?3 IS NULL OR user_id = ?3) AND post_id IS NULL
                    """, arguments: [source, actorID, userID])
                return try Row.fetchAll(db, sql: """
                    DELETE FROM webmentions
                    WHERE origin = 'activitypub' AND source = ?1 AND actor_id = ?2 AND (?3 IS NULL OR user_id = ?3)
                    RETURNING \(Self.responseColumns)
                    """, arguments: [source, actorID, userID]).map(Self.response)
            }
        }
    }

    public func removeFediverseResponses(ofActorID actorID: String, userID: Int64?) throws(StorageError) -> Int {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: """
                    DELETE FROM webmentions WHERE origin = 'activitypub' AND actor_id = ?1 AND (?2 IS NULL OR user_id = ?2)
                    """, arguments: [actorID, userID])
                return db.changesCount
            }
        }
    }

    public func fediverseResponses(source: String) throws(StorageError) -> [Webmention] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.responseColumns) FROM webmentions
                WHERE origin = 'activitypub' AND source = ? AND post_id IS NOT NULL ORDER BY id
                """, arguments: [source]).map(Self.response)
        }
    }

    private static func response(_ row: Row) throws -> Webmention {
        let status: String = row[5], kind: String = row[11], origin: String = row[17]
        guard let parsedStatus = Webmention.Status(rawValue: status), let parsedKind = Webmention.Kind(rawValue: kind),
              let parsedOrigin = Webmention.Origin(rawValue: origin) else {
            throw StorageError.failed("a webmention of unknown status \(status), kind \(kind) or origin \(origin)")
        }
        return Webmention(id: row[0], userID: row[1], postID: row[2], source: row[3], target: row[4], status: parsedStatus,
                          approved: row[6], receivedAt: Date.nearestMillisecond(row[7]), attempts: row[8],
                          nextAttemptAt: Date.nearestMillisecond(row[9]),
                          verifiedAt: (row[10] as Date?).map(Date.nearestMillisecond),
                          content: WebmentionContent(kind: parsedKind, authorName: row[12], authorURL: row[13],
                                                     authorPhoto: row[14], title: row[15], text: row[16]),
                          origin: parsedOrigin, actorID: row[18])
    }

    // MARK: Times

    static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
