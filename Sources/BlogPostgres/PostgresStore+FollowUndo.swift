import BlogModel
import Foundation
import PostgresNIO

/// A follow undone by its Follow's id alone, across blogs (found by the
/// actor, `followers_by_actor`).
extension PostgresStore {
    public func removeFollows(actorID: String, followID: String) throws(StorageError) -> [Follower] {
        try rows("""
            DELETE FROM followers WHERE actor_id = \(actorID) AND follow_id = \(followID)
            RETURNING \(unescaped: Self.followerColumns)
            """, Self.follower)
    }
}
