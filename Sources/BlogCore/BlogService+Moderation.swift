import BlogWire
import Foundation
import BlogModel

/// What the admin does (`blogd delete-post`, `suspend`, `unsuspend`,
/// `delete-user`, `adduser`), while a server runs on the same database or
/// not: each change is one commit, and the pages it touches are written
/// under the user's page lock, which the server takes too, so neither
/// writes a page from a state the other has changed.
extension BlogService {
    /// Why an admin command did nothing.
    public enum ModerationError: Error, Equatable, Sendable, CustomStringConvertible {
        case noSuchUser(String)
        case noSuchPost(Int64)
        case nameTaken(String)
        case badName(String)
        case badPassword
        case failed(String)

        public var description: String {
            switch self {
            case .noSuchUser(let name): "no such user: \(name)"
            case .noSuchPost(let id): "no such post: \(id)"
            case .nameTaken(let name): "the name \(name) is taken"
            case .badName(let name): "not a valid user name: \(name) (1 to 32 of A-Z a-z 0-9 _ -, starting with a letter or digit)"
            case .badPassword: "the password must be 1 to 256 bytes"
            case .failed(let reason): reason
            }
        }
    }

    /// Deletes post `id`, whoever wrote it, for good (no trash): its page
    /// answers 410 Gone, its photos' files go, and every page, the feeds
    /// and the index are rewritten. A post in the trash is purged at once
    /// (its pages are gone already). Returns the post's author.
    @discardableResult
    public func moderateDeletePost(id: Int64) throws(ModerationError) -> String {
        try moderating {
            guard let removed = try storage.removePost(id: id, ofUserID: nil, tombstone: true) else {
                guard let author = try storage.purgeTrashedPost(id: id) else { throw ModerationError.noSuchPost(id) }
                return try storage.user(id: author)?.name ?? "?"
            }
            defer { photoFiles.remove(removed.photos) }
            guard let owner = try storage.user(id: removed.userID) else { return "?" }
            try rewritePages(of: owner, after: removed.stub, deleted: true)
            return owner.name
        }
    }

    /// Suspends a user (no logins, posts, edits or deletions; the blog
    /// stays readable), or lifts it.
    public func moderateSuspend(_ name: String, _ suspended: Bool) throws(ModerationError) {
        try moderating {
            let user = try existing(name)
            try storage.setSuspended(userID: user.id, suspended, at: now())
        }
    }

    /// Deletes a user, their posts (those in the trash too) and photos,
    /// and every file of their blog and photos.
    public func moderateDeleteUser(_ name: String) throws(ModerationError) {
        try moderating {
            let user = try existing(name)
            try storage.withPageLock(userID: user.id) {
                // Read first: the rows go with the user. (An upload between
                // the two leaves files no row accounts for; the start-up
                // check removes them.)
                let photos = try storage.photos(ofUserID: user.id)
                try storage.deleteUser(id: user.id)
                userPages.removeAll(user)
                photoFiles.remove(photos)
            }
            users.forget(user.name)
            index.flush(0, .all)
        }
    }

    /// Creates a user with their (empty) blog, whether registration is
    /// open or not.
    public func moderateAddUser(_ name: String, password: String) throws(ModerationError) {
        let user: Username
        do { user = try Username(name) } catch { throw .badName(name) }
        guard (try? FieldRules.password(password)) != nil else { throw .badPassword }
        try moderating {
            if Self.reservedNames.contains(user.key) { throw ModerationError.nameTaken(name) }
            let hash = try hasher.hash(password)
            let record: UserRecord
            do {
                record = try storage.createUser(name: user.value, passwordHash: hash, at: now().wholeMilliseconds)
            } catch StorageError.nameTaken {
                throw ModerationError.nameTaken(name)
            }
            try pageWriter.write(record)
            try storage.withPageLock(userID: record.id) { try userPages.writeFeed(record) }
            index.flush(0, .all)
        }
    }

    private func existing(_ name: String) throws -> UserRecord {
        guard let user = try storage.user(named: name) else { throw ModerationError.noSuchUser(name) }
        return user
    }

    private func moderating<T>(_ body: () throws -> T) throws(ModerationError) -> T {
        do {
            return try body()
        } catch let error as ModerationError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }
}
