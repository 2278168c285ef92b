import BlogWire
import Foundation

/// A `BlogStorage` that counts the failures of another
/// (`blogd_storage_errors_total` by kind, `blogd_storage_deadlines_total`)
/// and otherwise hands every call straight on: one place sees every
/// backend's failures, whichever call made them.
///
///     let storage = MeteredStorage(try SQLiteStore(path: "data/blog.sqlite"))
///     let service = try BlogService(store: storage, pages: pages)
public struct MeteredStorage: BlogStorage {
    public let base: any BlogStorage

    public init(_ base: any BlogStorage) {
        self.base = base
        // Made now, so that /metrics shows them (at 0) before any failure.
        _ = StorageMetrics.shared
    }

    func counted<T>(_ call: @autoclosure () throws(StorageError) -> T) throws(StorageError) -> T {
        do {
            return try call()
        } catch {
            StorageMetrics.shared.record(error)
            throw error
        }
    }

    public func withPageLock<T>(userID: Int64, _ body: () throws -> T) throws -> T {
        // What `body` throws came from calls counted already (through
        // this storage) or from page files: only the lock's own failures
        // are counted here.
        var bodyFailed = false
        do {
            return try base.withPageLock(userID: userID) {
                do { return try body() } catch {
                    bodyFailed = true
                    throw error
                }
            }
        } catch let error as StorageError where !bodyFailed {
            StorageMetrics.shared.record(error)
            throw error
        }
    }

    public func user(named name: String) throws(StorageError) -> UserRecord? { try counted(try base.user(named: name)) }
    public func user(id: Int64) throws(StorageError) -> UserRecord? { try counted(try base.user(id: id)) }
    public func createUser(name: String, passwordHash: String, at date: Date) throws(StorageError) -> UserRecord {
        try counted(try base.createUser(name: name, passwordHash: passwordHash, at: date))
    }
    public func deleteUser(id: Int64) throws(StorageError) { try counted(try base.deleteUser(id: id)) }
    public func insertPost(userID: Int64, title: String, content: String, contentHTML: String?, weight: Int,
                           place: Place?, photos: [PhotoAttachment], at date: Date, layout: PageLayout,
                           token: UUID) throws(StorageError) -> NewPost {
        try counted(try base.insertPost(userID: userID, title: title, content: content, contentHTML: contentHTML,
                                        weight: weight, place: place, photos: photos, at: date, layout: layout,
                                        token: token))
    }
    public func claimPostToken(_ token: UUID) throws(StorageError) -> Int64? { try counted(try base.claimPostToken(token)) }
    public func deletePostTokens(before date: Date) throws(StorageError) {
        try counted(try base.deletePostTokens(before: date))
    }
    public func removePost(id: Int64, ofUserID userID: Int64?, tombstone: Bool) throws(StorageError) -> PostRecord? {
        try counted(try base.removePost(id: id, ofUserID: userID, tombstone: tombstone))
    }
    public func deletedPostIDs(ofUserID userID: Int64) throws(StorageError) -> [Int64] {
        try counted(try base.deletedPostIDs(ofUserID: userID))
    }
    public func trashPost(id: Int64, ofUserID userID: Int64, at date: Date) throws(StorageError) -> PostRecord? {
        try counted(try base.trashPost(id: id, ofUserID: userID, at: date))
    }
    public func trashedPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [TrashedPost] {
        try counted(try base.trashedPosts(ofUserID: userID, limit: limit))
    }
    public func restorePost(id: Int64, ofUserID userID: Int64) throws(StorageError) -> PostRecord? {
        try counted(try base.restorePost(id: id, ofUserID: userID))
    }
    public func purgeTrash(trashedBefore date: Date, limit: Int) throws(StorageError) -> Int {
        try counted(try base.purgeTrash(trashedBefore: date, limit: limit))
    }
    public func purgeTrashedPost(id: Int64) throws(StorageError) -> Int64? {
        try counted(try base.purgeTrashedPost(id: id))
    }
    public func editPost(id: Int64, ofUserID userID: Int64, _ edit: PostEdit, weight: Int,
                         photoWeight: @escaping @Sendable ([PostPhoto]) -> Int,
                         at date: Date) throws(StorageError) -> EditedPost? {
        try counted(try base.editPost(id: id, ofUserID: userID, edit, weight: weight, photoWeight: photoWeight, at: date))
    }
    public func setSuspended(userID: Int64, _ suspended: Bool, at date: Date) throws(StorageError) {
        try counted(try base.setSuspended(userID: userID, suspended, at: date))
    }
    public func updatePassword(userID: Int64, passwordHash: String) throws(StorageError) {
        try counted(try base.updatePassword(userID: userID, passwordHash: passwordHash))
    }
    public func pageGroups(ofUserID userID: Int64, limit: Int?) throws(StorageError) -> [PageGroup] {
        try counted(try base.pageGroups(ofUserID: userID, limit: limit))
    }
    public func newestPosts(ofUserID userID: Int64) throws(StorageError) -> [PostStub] {
        try counted(try base.newestPosts(ofUserID: userID))
    }
    public func postStubs(ofUserID userID: Int64, pages: ClosedRange<Int>) throws(StorageError) -> [PostStub] {
        try counted(try base.postStubs(ofUserID: userID, pages: pages))
    }
    public func adjacentPosts(to post: PostStub, ofUserID userID: Int64) throws(StorageError) -> AdjacentPosts {
        try counted(try base.adjacentPosts(to: post, ofUserID: userID))
    }
    public func recentPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostRecord] {
        try counted(try base.recentPosts(ofUserID: userID, limit: limit))
    }
    public func placedPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostRecord] {
        try counted(try base.placedPosts(ofUserID: userID, limit: limit))
    }
    public func postHeadings(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostHeading] {
        try counted(try base.postHeadings(ofUserID: userID, limit: limit))
    }
    public func recentPosts(limit: Int) throws(StorageError) -> [AuthoredPost] { try counted(try base.recentPosts(limit: limit)) }
    public func posts(ids: [Int64]) throws(StorageError) -> [PostRecord] { try counted(try base.posts(ids: ids)) }
    public func storePhoto(_ photo: PostPhoto, userID: Int64, image: [UInt8], thumbnail: [UInt8],
                           at date: Date) throws(StorageError) {
        try counted(try base.storePhoto(photo, userID: userID, image: image, thumbnail: thumbnail, at: date))
    }
    public func photoData(name: String) throws(StorageError) -> (image: [UInt8], thumbnail: [UInt8])? {
        try counted(try base.photoData(name: name))
    }
    public func deletePhotos(unattachedBefore date: Date) throws(StorageError) -> [PostPhoto] {
        try counted(try base.deletePhotos(unattachedBefore: date))
    }
    public func photos(ofUserID userID: Int64) throws(StorageError) -> [PostPhoto] {
        try counted(try base.photos(ofUserID: userID))
    }
    public func allUsers() throws(StorageError) -> [UserRecord] { try counted(try base.allUsers()) }
    public func blogIndex(limit: Int) throws(StorageError) -> [BlogEntry] { try counted(try base.blogIndex(limit: limit)) }
    public func blogIndex(activeSince date: Date, limit: Int) throws(StorageError) -> [BlogEntry] {
        try counted(try base.blogIndex(activeSince: date, limit: limit))
    }
    public func userSummaries() throws(StorageError) -> [UserSummary] { try counted(try base.userSummaries()) }
    public func grantLease(userKey: String, address: String, until expiry: Date) throws(StorageError) {
        try counted(try base.grantLease(userKey: userKey, address: address, until: expiry))
    }
    public func leaseExpiry(userKey: String, address: String) throws(StorageError) -> Date? {
        try counted(try base.leaseExpiry(userKey: userKey, address: address))
    }
    public func siteValue(_ key: String, storingIfAbsent value: String) throws(StorageError) -> String {
        try counted(try base.siteValue(key, storingIfAbsent: value))
    }
    public func deleteLeases(expiredBefore date: Date) throws(StorageError) {
        try counted(try base.deleteLeases(expiredBefore: date))
    }
    public func recordLoginFailure(userKey: String, address: String, at date: Date,
                                   policy: LoginPolicy) throws(StorageError) -> LoginFailures {
        try counted(try base.recordLoginFailure(userKey: userKey, address: address, at: date, policy: policy))
    }
    public func loginFailures(userKey: String, address: String) throws(StorageError) -> LoginFailures? {
        try counted(try base.loginFailures(userKey: userKey, address: address))
    }
    @discardableResult
    public func deleteStaleLoginFailures(at date: Date, policy: LoginPolicy) throws(StorageError) -> Int {
        try counted(try base.deleteStaleLoginFailures(at: date, policy: policy))
    }
    public func clearLoginFailures(userKey: String, address: String) throws(StorageError) {
        try counted(try base.clearLoginFailures(userKey: userKey, address: address))
    }
    public func createToken(userID: Int64, secretHash: String, kind: AccessToken.Kind, scopes: String, label: String,
                            at date: Date, expires: Date?) throws(StorageError) -> AccessToken {
        try counted(try base.createToken(userID: userID, secretHash: secretHash, kind: kind, scopes: scopes, label: label,
                                         at: date, expires: expires))
    }
    public func token(secretHash: String) throws(StorageError) -> AccessToken? {
        try counted(try base.token(secretHash: secretHash))
    }
    public func tokens(ofUserID userID: Int64) throws(StorageError) -> [AccessToken] {
        try counted(try base.tokens(ofUserID: userID))
    }
    public func deleteToken(id: Int64, ofUserID userID: Int64) throws(StorageError) -> Bool {
        try counted(try base.deleteToken(id: id, ofUserID: userID))
    }
    @discardableResult
    public func deleteTokens(ofUserID userID: Int64, kind: AccessToken.Kind?) throws(StorageError) -> Int {
        try counted(try base.deleteTokens(ofUserID: userID, kind: kind))
    }
    @discardableResult
    public func deleteTokens(expiredBefore date: Date) throws(StorageError) -> Int {
        try counted(try base.deleteTokens(expiredBefore: date))
    }
    public func ping() throws(StorageError) { try counted(try base.ping()) }
    public func close() throws(StorageError) { try counted(try base.close()) }
}
