import BlogModel
import Foundation
import GRDB

/// A `Block` queued to an actor the blog blocks, and its `Undo` when the
/// block is lifted, in SQLite (migration v23-block-notices: the block
/// keeps the inbox its Block went to).
extension SQLiteStore {
    public func block(userID: Int64, _ target: BlockTarget, at date: Date, reject: @escaping FollowAnswerBody,
                      notice: @escaping BlockNoticeBody) throws(StorageError) -> (followers: Int, responses: Int) {
        let at = Self.ms(date)
        return try gate.pass { () throws(StorageError) in
            try write { db in
                let removed = try Self.block(db, userID: userID, target, at: at, reject: reject)
                if case .actor(let actor) = target, let follower = removed.followers.first(where: { $0.actorID == actor }),
                   let blockedAt = try Int64.fetchOne(db, sql: """
                       UPDATE actor_blocks SET inbox = ? WHERE user_id = ? AND kind = 'actor' AND value = ?
                       RETURNING created_at
                       """, arguments: [follower.inbox, userID, actor]) {
                    try Self.queueOwn(db, .block, userID: userID, about: "\(actor) \(blockedAt)", inbox: follower.inbox,
                                      body: notice(Self.date(blockedAt)), at: at)
                }
                return (removed.followers.count, removed.responses)
            }
        }
    }

    public func unblock(userID: Int64, _ target: BlockTarget, at date: Date,
                        undo: @escaping BlockNoticeBody) throws(StorageError) -> Bool {
        let at = Self.ms(date)
        return try gate.pass { () throws(StorageError) in
            try write { db in
                guard let row = try Row.fetchOne(db, sql: """
                    DELETE FROM actor_blocks WHERE user_id = ? AND kind = ? AND value = ? RETURNING created_at, inbox
                    """, arguments: [userID, target.kind, target.value])
                else { return false }
                let blockedAt: Int64 = row[0]
                if let inbox: String = row[1] {
                    let about = "\(target.value) \(blockedAt)"
                    // The Block still queued goes, so it never reaches the
                    // remote after its Undo; one never sent needs no Undo.
                    let block = DeliveryKind.ownActivityID(userID: userID, kind: .block, about: about)
                    let queued = try Row.fetchOne(db, sql: """
                        DELETE FROM activity_deliveries WHERE activity_id = ? AND inbox = ? RETURNING attempts, due_at
                        """, arguments: [block, inbox])
                    let attempts: Int? = queued?[0], blockDue: Int64? = queued?[1]
                    if attempts != 0 {
                        try Self.queueOwn(db, .unblock, userID: userID, about: BlockNotice.undoAbout(block: block),
                                          inbox: inbox, body: undo(Self.date(blockedAt)), at: at)
                        if let due = BlockNotice.undoDue(blockDue: blockDue, at: at) {
                            try db.execute(sql: "UPDATE activity_deliveries SET due_at = ? WHERE activity_id = ? AND inbox = ?",
                                           arguments: [due, BlockNotice.undoActivityID(userID: userID, block: block), inbox])
                        }
                    }
                }
                return true
            }
        }
    }
}
