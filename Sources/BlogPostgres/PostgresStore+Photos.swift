import BlogModel
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Photos in PostgreSQL (`photos`, migration 8): the bytes as `bytea`, so
/// every instance on the database can write a photo's files again. Bytes
/// travel as `ByteBuffer`s: PostgresNIO sends a `[UInt8]` as an array of
/// `"char"`, not as `bytea`.
extension PostgresStore {
    public func storePhoto(_ photo: PostPhoto, userID: Int64, image: [UInt8], thumbnail: [UInt8],
                           at date: Date) throws(StorageError) {
        let created = Milliseconds.of(date)
        let stored: [String]
        do {
            // One statement, so durable when it returns. From the user's
            // row: a user suspended or deleted since the service looked
            // stores nothing, as for a post.
            stored = try rows("""
                INSERT INTO photos (name, user_id, image, thumbnail, width, height, thumbnail_width, thumbnail_height,
                                    created_at)
                SELECT \(photo.name), id, \(ByteBuffer(bytes: image)), \(ByteBuffer(bytes: thumbnail)), \(photo.width),
                       \(photo.height), \(photo.thumbnailWidth), \(photo.thumbnailHeight),
                       timestamptz 'epoch' + \(created) * interval '1 millisecond'
                FROM users WHERE id = \(userID) AND suspended_at IS NULL
                RETURNING name
                """) { try $0.decode(String.self) }
        } catch .nameTaken {
            // The table's one unique column is the name (see `PostgresFailure`).
            throw .photoNameTaken
        }
        guard !stored.isEmpty else { throw .unknownUser }
    }

    public func photoData(name: String) throws(StorageError) -> (image: [UInt8], thumbnail: [UInt8])? {
        try rows("SELECT image, thumbnail FROM photos WHERE name = \(name) AND trashed_post_id IS NULL") { row in
            let (image, thumbnail) = try row.decode((ByteBuffer, ByteBuffer).self)
            return (image: Array(image.readableBytesView), thumbnail: Array(thumbnail.readableBytesView))
        }.first
    }

    public func deletePhotos(unattachedBefore date: Date) throws(StorageError) -> [PostPhoto] {
        try rows("""
            DELETE FROM photos
            WHERE post_id IS NULL AND trashed_post_id IS NULL AND created_at < timestamptz 'epoch' + \(Milliseconds.of(date)) * interval '1 millisecond'
            RETURNING \(unescaped: Self.photoColumns)
            """, Self.photo)
    }

    public func photos(ofUserID userID: Int64) throws(StorageError) -> [PostPhoto] {
        try rows("""
            SELECT \(unescaped: Self.photoColumns) FROM photos WHERE user_id = \(userID) AND trashed_post_id IS NULL
            ORDER BY created_at, name
            """, Self.photo)
    }

    /// The photos `names` name, in that order, if every one is stored, the
    /// user's and on no post; `.unknownPhoto` otherwise. Their rows stay
    /// locked to the end of the transaction, so that no other one attaches
    /// them meanwhile (one waiting finds them attached, and refuses).
    static func attachablePhotos(_ connection: PostgresConnection, names: [String], userID: Int64,
                                 logger: Logger) async throws -> [PostPhoto] {
        guard !names.isEmpty else { return [] }
        var byName: [String: PostPhoto] = [:]
        for try await row in try await connection.query("""
            SELECT \(unescaped: photoColumns) FROM photos
            WHERE name = ANY(\(names)) AND user_id = \(userID) AND post_id IS NULL AND trashed_post_id IS NULL
            FOR UPDATE
            """, logger: logger) {
            let photo = try Self.photo(row)
            byName[photo.name] = photo
        }
        return try names.map { name in
            guard let photo = byName[name] else { throw StorageError.unknownPhoto }
            return photo
        }
    }

    private static let photoColumns = "name, width, height, thumbnail_width, thumbnail_height"

    private static func photo(_ row: PostgresRow) throws -> PostPhoto {
        let (name, width, height, thumbnailWidth, thumbnailHeight) = try row.decode((String, Int, Int, Int, Int).self)
        return PostPhoto(name: name, width: width, height: height, thumbnailWidth: thumbnailWidth,
                         thumbnailHeight: thumbnailHeight)
    }
}
