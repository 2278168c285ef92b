import BlogModel
import BlogWire
import Foundation
import GRDB

/// Blog settings in SQLite (`blog_settings`, migration v15): one row per
/// user that set any, going with the user by cascade.
extension SQLiteStore {
    public func blogSettings(ofUserID userID: Int64) throws(StorageError) -> BlogSettings {
        try readOne { db in try Self.blogSettings(db, userID: userID) }
    }

    /// The settings beside the blog's version in one visit to a reader:
    /// the newest posts then come from memory while the version holds
    /// (`newestPosts(ofUserID:)`), as they did before blogs had settings.
    public func newestPostsAndSettings(ofUserID userID: Int64) throws(StorageError)
        -> (posts: [PostStub], settings: BlogSettings) {
        let (version, settings) = try readOne { db in
            (try Self.postsVersion(db, userID: userID), try Self.blogSettings(db, userID: userID))
        }
        if let version, let posts = newest.posts(of: userID, version: version) { return (posts, settings) }
        return (try newestPosts(ofUserID: userID), settings)
    }

    /// One statement by primary key, prepared once per connection: the
    /// page writer reads it with every write of a blog's pages.
    private static func blogSettings(_ db: Database, userID: Int64) throws -> BlogSettings {
        try Row.fetchOne(db.cachedStatement(sql: """
            SELECT title, description, author_name, author_photo FROM blog_settings WHERE user_id = ?
            """), arguments: [userID]).map {
            BlogSettings(stored: $0[0], description: $0[1], authorName: $0[2], authorPhoto: $0[3])
        } ?? .unset
    }

    public func setBlogSettings(_ settings: BlogSettings, ofUserID userID: Int64, at date: Date) throws(StorageError) {
        let updated = date.wholeMilliseconds
        try gate.pass { () throws(StorageError) in
            try write { db in
                try db.execute(sql: """
                    INSERT INTO blog_settings (user_id, title, description, author_name, author_photo, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET title = excluded.title, description = excluded.description,
                        author_name = excluded.author_name, author_photo = excluded.author_photo,
                        updated_at = excluded.updated_at
                    """, arguments: [userID, settings.title, settings.description, settings.authorName,
                                     settings.authorPhoto, updated])
            }
        }
    }
}
