import BlogModel
import BlogWire
import Foundation
import PostgresNIO

/// Blog settings (`blog_settings`, migration 12): one row per user that
/// set any, going with the user by cascade.
extension PostgresStore {
    public func blogSettings(ofUserID userID: Int64) throws(StorageError) -> BlogSettings {
        try rows("""
            SELECT title, description, author_name, author_photo FROM blog_settings WHERE user_id = \(userID)
            """) { row in
            let (title, description, name, photo) = try row.decode((String?, String?, String?, String?).self)
            return BlogSettings(stored: title, description: description, authorName: name, authorPhoto: photo)
        }.first ?? .unset
    }

    public func setBlogSettings(_ settings: BlogSettings, ofUserID userID: Int64, at date: Date) throws(StorageError) {
        // One statement: committed (durable) when it returns. `::text`: a
        // NULL goes as a value of no type.
        try execute("""
            INSERT INTO blog_settings (user_id, title, description, author_name, author_photo, updated_at)
            VALUES (\(userID), \(settings.title)::text, \(settings.description)::text, \(settings.authorName)::text,
                    \(settings.authorPhoto)::text,
                    timestamptz 'epoch' + \(Milliseconds.of(date)) * interval '1 millisecond')
            ON CONFLICT (user_id) DO UPDATE SET title = excluded.title, description = excluded.description,
                author_name = excluded.author_name, author_photo = excluded.author_photo, updated_at = excluded.updated_at
            """)
    }
}
