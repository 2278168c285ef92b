import BlogModel
import Foundation
import Logging
import PostgresNIO

/// A `Block` queued to an actor the blog blocks, and its `Undo` when the
/// block is lifted, in PostgreSQL (migration 21: the block keeps the
/// inbox its Block went to).
extension PostgresStore {
    public func block(userID: Int64, _ target: BlockTarget, at date: Date, reject: @escaping FollowAnswerBody,
                      notice: @escaping BlockNoticeBody) throws(StorageError) -> (followers: Int, responses: Int) {
        let at = Milliseconds.of(date)
        return try transaction { [logger] connection in
            let removed = try await Self.block(connection, userID: userID, target, at: at, reject: reject, logger: logger)
            if case .actor(let actor) = target, let follower = removed.followers.first(where: { $0.actorID == actor }) {
                var blockedAt: Int64?
                for try await found in try await connection.query("""
                    UPDATE actor_blocks SET inbox = \(follower.inbox)
                    WHERE user_id = \(userID) AND kind = 'actor' AND value = \(actor) RETURNING created_at
                    """, logger: logger).decode(Int64.self) {
                    blockedAt = found
                }
                if let blockedAt {
                    try await Self.queueOwn(connection, .block, userID: userID, about: "\(actor) \(blockedAt)",
                                            inbox: follower.inbox, body: notice(Milliseconds.date(blockedAt)), at: at,
                                            logger: logger)
                }
            }
            return (removed.followers.count, removed.responses)
        }
    }

    public func unblock(userID: Int64, _ target: BlockTarget, at date: Date,
                        undo: @escaping BlockNoticeBody) throws(StorageError) -> Bool {
        let at = Milliseconds.of(date), kind = target.kind, value = target.value
        return try transaction { [logger] connection in
            var found: (Int64, String?)?
            for try await row in try await connection.query("""
                DELETE FROM actor_blocks WHERE user_id = \(userID) AND kind = \(kind) AND value = \(value)
                RETURNING created_at, inbox
                """, logger: logger).decode((Int64, String?).self) {
                found = row
            }
            guard let (blockedAt, inbox) = found else { return false }
            if let inbox {
                let about = "\(value) \(blockedAt)"
                // The Block still queued goes, so it never reaches the remote
                // after its Undo; one never sent needs no Undo.
                let block = DeliveryKind.ownActivityID(userID: userID, kind: .block, about: about)
                var attempts: Int?, blockDue: Int64?
                for try await found in try await connection.query("""
                    DELETE FROM activity_deliveries WHERE activity_id = \(block) AND inbox = \(inbox)
                    RETURNING attempts, due_at
                    """, logger: logger).decode((Int, Int64).self) {
                    (attempts, blockDue) = found
                }
                if attempts != 0 {
                    try await Self.queueOwn(connection, .unblock, userID: userID, about: BlockNotice.undoAbout(block: block),
                                            inbox: inbox, body: undo(Milliseconds.date(blockedAt)), at: at, logger: logger)
                    if let due = BlockNotice.undoDue(blockDue: blockDue, at: at) {
                        let undoID = BlockNotice.undoActivityID(userID: userID, block: block)
                        try await connection.query("""
                            UPDATE activity_deliveries SET due_at = \(due) WHERE activity_id = \(undoID) AND inbox = \(inbox)
                            """, logger: logger)
                    }
                }
            }
            return true
        }
    }
}
