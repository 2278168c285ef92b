import BlogModel
import Foundation

extension ForwardingStorage {
    func removeFollows(actorID: String, followID: String) throws(StorageError) -> [Follower] {
        try store.removeFollows(actorID: actorID, followID: followID)
    }
}
