import BlogWire
import Foundation

/// Each blog's own settings (`BlogSettings`: title, description, the
/// author's name and photo), one row per user that set any; they go with
/// the user.
public protocol BlogSettingsStorage: Sendable {
    /// The settings of `userID`'s blog; `.unset` when none were ever set
    /// (or the user does not exist).
    func blogSettings(ofUserID userID: Int64) throws(StorageError) -> BlogSettings

    /// Replaces the settings of `userID`'s blog, durable before it returns
    /// (as a post is). `.unknownUser` when there is no such user, and
    /// nothing is stored.
    func setBlogSettings(_ settings: BlogSettings, ofUserID userID: Int64, at date: Date) throws(StorageError)

    /// `newestPosts(ofUserID:)` and `blogSettings(ofUserID:)` together:
    /// what the page writer reads with every post. A backend answers both
    /// in one round trip (the default makes the two calls), so a blog's
    /// settings cost a post no extra trip to the database.
    func newestPostsAndSettings(ofUserID userID: Int64) throws(StorageError) -> (posts: [PostStub], settings: BlogSettings)
}

extension BlogSettingsStorage where Self: PostStorage {
    public func newestPostsAndSettings(ofUserID userID: Int64) throws(StorageError)
        -> (posts: [PostStub], settings: BlogSettings) {
        (try newestPosts(ofUserID: userID), try blogSettings(ofUserID: userID))
    }
}
