import BlogWire
import Foundation
import BlogModel
import BlogPages

/// Photos: stored on upload (the Micropub media endpoint, the web
/// client's form), attached by a `newpost` or `geopost` that names them.
extension BlogService {
    /// Stores an uploaded, already processed photo (`BlogPhotos`) for
    /// `user`, who must be allowed to post (the same rule as `newpost`),
    /// and writes its two files into the public folder, so its URL works at
    /// once (Micropub's media endpoint returns it). Returns `.posted`,
    /// `.postRefused` (not allowed, unknown or suspended user), or
    /// `.postFailed` (the database or the files failed; an upload that is
    /// not a processed photo, a caller's bug, is refused so too).
    public func storePhoto(_ photo: PostPhoto, image: [UInt8], thumbnail: [UInt8], for user: Username,
                           session: Session) -> Reply {
        RequestDeadline.$end.withValue(storageDeadline()) {
            storing(photo, image: image, thumbnail: thumbnail, for: user, session: session)
        }
    }

    private func storing(_ photo: PostPhoto, image: [UInt8], thumbnail: [UInt8], for user: Username,
                         session: Session) -> Reply {
        // The name becomes a file name, and the files are served as
        // image/jpeg and checked as JPEGs at every start.
        guard PostPhoto.isValidName(photo.name),
              [photo.width, photo.height, photo.thumbnailWidth, photo.thumbnailHeight].allSatisfy({ $0 > 0 }),
              PhotoFiles.isWholeJPEG(image), PhotoFiles.isWholeJPEG(thumbnail) else {
            logger.error("photo refused: not a processed photo", metadata: ["user": "\(user)"])
            return .postFailed
        }
        do {
            guard let owner = try users.user(named: user), try mayActAs(user, session) else { return .postRefused }
            if try !storeRow(photo, image: image, thumbnail: thumbnail, of: owner) {
                // Deleted or suspended by the admin since the directory
                // found the name; it may have been registered again.
                users.forget(user.value)
                guard let current = try users.user(named: user), current.id != owner.id,
                      try storeRow(photo, image: image, thumbnail: thumbnail, of: current) else { return .postRefused }
            }
            try photoFiles.write(photo, image: image, thumbnail: thumbnail)
            return .posted
        } catch StorageError.unknownUser {
            return .postRefused
        } catch {
            // A row left without its files is on no post and known to
            // nobody: pruned with the other unattached ones after a day.
            logger.error("photo not stored", metadata: ["user": "\(user)", "photo": "\(photo.name)", "error": "\(error)"])
            return .postFailed
        }
    }

    /// Stores the photo's row for `owner`; false when the store no longer
    /// knows them as an active user.
    private func storeRow(_ photo: PostPhoto, image: [UInt8], thumbnail: [UInt8], of owner: UserRecord) throws -> Bool {
        do {
            try storage.storePhoto(photo, userID: owner.id, image: image, thumbnail: thumbnail, at: now().wholeMilliseconds)
            return true
        } catch .unknownUser {
            return false
        }
    }

    /// Writes again the photo files of `users` that are missing or cut
    /// short; returns the names of the users who had any.
    func restorePhotos(of users: [UserRecord]) throws(RepairError) -> (restored: [String], known: Set<String>) {
        var restored: [String] = []
        var known = Set<String>()
        for user in users {
            do {
                let photos = try storage.photos(ofUserID: user.id)
                known.formUnion(photos.map(\.name))
                if try photoFiles.restore(photos, from: storage) > 0 { restored.append(user.name) }
            } catch {
                throw .failed(user: user.name, reason: "photos: \(error)")
            }
        }
        return (restored, known)
    }
}
