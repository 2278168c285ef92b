import Foundation

/// Photos: uploaded first, attached by `insertPost`. The bytes are kept in
/// the database (so several instances share them and nothing acknowledged
/// lives only in a file); their files in the public folder are derived,
/// like the pages.
public protocol PhotoStorage: Sendable {
    /// Stores an uploaded photo, not yet on any post; durable before it
    /// returns. `.unknownUser` when the user is gone (or suspended, as for
    /// `insertPost`). A name stored already is a failure (two random
    /// 128-bit names never meet).
    func storePhoto(_ photo: PostPhoto, userID: Int64, image: [UInt8], thumbnail: [UInt8],
                    at date: Date) throws(StorageError)

    /// The bytes of a stored photo (to write its files again), nil when
    /// there is none or it is in the trash (its files must not be).
    func photoData(name: String) throws(StorageError) -> (image: [UInt8], thumbnail: [UInt8])?

    /// Deletes the photos on no post that were stored before `date`;
    /// returns them (their files go too).
    func deletePhotos(unattachedBefore date: Date) throws(StorageError) -> [PostPhoto]

    /// Every photo of the user, on a post or waiting for one, oldest first
    /// (deleting a user removes their files; the start-up check restores
    /// them); not those of posts in the trash, which have no files.
    func photos(ofUserID userID: Int64) throws(StorageError) -> [PostPhoto]
}
