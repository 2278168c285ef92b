import Foundation

/// A follow undone by the id of its `Follow` alone, with no blog named:
/// bovine's `Undo` carries only that id, and at the shared inbox
/// (`BASE/ap/inbox`) nothing else says which blog was followed.
public protocol FollowUndoStorage: Sendable {
    /// Removes, on every blog, `actorID`'s follows whose Follow id is
    /// `followID` (accepted or waiting), in one statement, and returns
    /// them as they were. Both must match: a third party naming someone
    /// else's Follow id removes nothing.
    func removeFollows(actorID: String, followID: String) throws(StorageError) -> [Follower]
}
