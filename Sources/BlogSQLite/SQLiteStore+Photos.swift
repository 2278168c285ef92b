import BlogModel
import Foundation
import GRDB

/// Photos in SQLite (`photos`, migration v10): the bytes as BLOBs, written
/// through group commit like everything else, so an upload is durable when
/// `storePhoto` returns. Times are UTC text to the millisecond, as posts'.
extension SQLiteStore {
    public func storePhoto(_ photo: PostPhoto, userID: Int64, image: [UInt8], thumbnail: [UInt8],
                           at date: Date) throws(StorageError) {
        let date = date.wholeMilliseconds
        try gate.pass { () throws(StorageError) in
            try write { db in
                do {
                    // From the user's row: a user suspended or deleted since
                    // the service looked stores nothing, as for a post.
                    try db.execute(sql: """
                        INSERT INTO photos (name, user_id, image, thumbnail, width, height, thumbnail_width,
                                            thumbnail_height, created_at)
                        SELECT ?, id, ?, ?, ?, ?, ?, ?, ? FROM users WHERE id = ? AND suspended_at IS NULL
                        """, arguments: [photo.name, Data(image), Data(thumbnail), photo.width, photo.height,
                                         photo.thumbnailWidth, photo.thumbnailHeight, date, userID])
                } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
                    // The name is the primary key; `write` would report it
                    // as nothing it knows.
                    throw StorageError.photoNameTaken
                }
                guard db.changesCount == 1 else { throw StorageError.unknownUser }
            }
        }
    }

    public func photoData(name: String) throws(StorageError) -> (image: [UInt8], thumbnail: [UInt8])? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT image, thumbnail FROM photos WHERE name = ? AND trashed_post_id IS NULL", arguments: [name]).map { row in
                (image: Array(row[0] as Data), thumbnail: Array(row[1] as Data))
            }
        }
    }

    public func deletePhotos(unattachedBefore date: Date) throws(StorageError) -> [PostPhoto] {
        let date = date.wholeMilliseconds
        return try gate.pass { () throws(StorageError) in
            try write { db in
                // `post_id IS NULL` as the partial index says it, so that
                // SQLite walks only the unattached ones.
                // A trashed post's photos wait for it, on no post.
                try Row.fetchAll(db, sql: """
                    DELETE FROM photos WHERE post_id IS NULL AND trashed_post_id IS NULL AND created_at < ?
                    RETURNING \(Self.photoColumns)
                    """, arguments: [date]).map(Self.photo)
            }
        }
    }

    public func photos(ofUserID userID: Int64) throws(StorageError) -> [PostPhoto] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.photoColumns) FROM photos WHERE user_id = ? AND trashed_post_id IS NULL
                ORDER BY created_at, name
                """, arguments: [userID]).map(Self.photo)
        }
    }

    /// The photos `names` name, in that order, if every one is stored, the
    /// user's and on no post; `.unknownPhoto` otherwise.
    static func attachablePhotos(_ db: Database, names: [String], userID: Int64) throws -> [PostPhoto] {
        guard !names.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
        let found = try Row.fetchAll(db, sql: """
            SELECT \(photoColumns) FROM photos WHERE name IN (\(marks)) AND user_id = ? AND post_id IS NULL
                  AND trashed_post_id IS NULL
            """, arguments: StatementArguments(names) + StatementArguments([userID])).map(photo)
        let byName = Dictionary(found.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return try names.map { name in
            guard let photo = byName[name] else { throw StorageError.unknownPhoto }
            return photo
        }
    }

    /// Puts the photos `names` (checked by `attachablePhotos`) on post `id`.
    static func attach(_ db: Database, _ names: [String], to id: Int64) throws {
        try db.execute(sql: "UPDATE photos SET post_id = ? WHERE name IN (\(marks(names.count)))",
                       arguments: StatementArguments([id]) + StatementArguments(names))
    }

    /// `?, ?, …`: `count` placeholders.
    static func marks(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    private static let photoColumns = "name, width, height, thumbnail_width, thumbnail_height"

    private static func photo(_ row: Row) -> PostPhoto {
        PostPhoto(name: row[0], width: row[1], height: row[2], thumbnailWidth: row[3], thumbnailHeight: row[4])
    }
}
