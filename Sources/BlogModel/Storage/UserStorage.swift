import Foundation

/// Users: their rows, names, suspension and password hashes.
public protocol UserStorage: Sendable {
    /// The user of that name, compared regardless of case.
    func user(named name: String) throws(StorageError) -> UserRecord?

    /// The user with that id.
    func user(id: Int64) throws(StorageError) -> UserRecord?

    /// Inserts a user; `.nameTaken` when the name exists in any case.
    func createUser(name: String, passwordHash: String, at date: Date) throws(StorageError) -> UserRecord

    /// Deletes a user, their posts and their access tokens.
    func deleteUser(id: Int64) throws(StorageError)

    /// Suspends a user (`suspended`) or lifts it.
    func setSuspended(userID: Int64, _ suspended: Bool, at date: Date) throws(StorageError)

    /// Sets a user's password hash and, in the same commit, ends what the
    /// old password gave: the user's login leases (every address) and web
    /// sessions (access tokens of kind `.session`). Bearer tokens stay: an
    /// app's token was given on purpose, is listed and revoked on its own.
    /// `.unknownUser` when there is no such user, and nothing changes.
    func updatePassword(userID: Int64, passwordHash: String) throws(StorageError)

    /// Every user, by id.
    func allUsers() throws(StorageError) -> [UserRecord]

    /// Every user with post count and last post time, by name.
    func userSummaries() throws(StorageError) -> [UserSummary]
}
