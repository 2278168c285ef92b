import BlogModel
import Foundation
import GRDB

/// A follow undone by its Follow's id alone, across blogs (found by the
/// actor, `followers_by_actor`).
extension SQLiteStore {
    public func removeFollows(actorID: String, followID: String) throws(StorageError) -> [Follower] {
        try gate.pass { () throws(StorageError) in
            try write { db in
                try Row.fetchAll(db, sql: """
                    DELETE FROM followers WHERE actor_id = ? AND follow_id = ? RETURNING \(Self.followerColumns)
                    """, arguments: [actorID, followID]).map(Self.follower)
            }
        }
    }
}
