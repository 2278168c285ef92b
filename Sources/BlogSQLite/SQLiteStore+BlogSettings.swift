import BlogModel
import BlogWire
import Foundation
import GRDB

/// Blog settings in SQLite (`blog_settings`, migration v14): one row per
/// user that set any, going with the user by cascade.
extension SQLiteStore {
    public func blogSettings(ofUserID userID: Int64) throws(StorageError) -> BlogSettings {
        // One statement by primary key: the page writer reads it with
        // every write of a blog's pages.
        try readOne { db in
            try Row.fetchOne(db, sql: """
                SELECT title, description, author_name, author_photo FROM blog_settings WHERE user_id = ?
                """, arguments: [userID]).map {
                BlogSettings(stored: $0[0], description: $0[1], authorName: $0[2], authorPhoto: $0[3])
            } ?? .unset
        }
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
