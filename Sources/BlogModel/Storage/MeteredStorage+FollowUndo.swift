import Foundation

/// A follow undone by its id alone, counted like the others.
extension MeteredStorage {
    public func removeFollows(actorID: String, followID: String) throws(StorageError) -> [Follower] {
        try counted(try base.removeFollows(actorID: actorID, followID: followID))
    }
}
