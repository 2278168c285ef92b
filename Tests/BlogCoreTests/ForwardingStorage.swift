import BlogWire
import Foundation
@testable import BlogCore
import BlogSQLite
@testable import BlogAuth
import BlogModel

/// A `BlogStorage` that hands every call to a real `SQLiteStore`: subclasses
/// override the calls a test needs to hold up or fail.
class ForwardingStorage: BlogStorage, @unchecked Sendable {
    let store: SQLiteStore

    init(_ store: SQLiteStore) { self.store = store }

    func withPageLock<T>(userID: Int64, _ body: () throws -> T) throws -> T {
        try store.withPageLock(userID: userID, body)
    }

    func user(named name: String) throws(StorageError) -> UserRecord? { try store.user(named: name) }
    func user(id: Int64) throws(StorageError) -> UserRecord? { try store.user(id: id) }
    func createUser(name: String, passwordHash: String, at date: Date) throws(StorageError) -> UserRecord {
        try store.createUser(name: name, passwordHash: passwordHash, at: date)
    }
    func deleteUser(id: Int64) throws(StorageError) { try store.deleteUser(id: id) }
    func insertPost(userID: Int64, title: String, content: String, contentHTML: String?, categories: [String],
                    weight: Int, place: Place?, photos: [PhotoAttachment], at date: Date, layout: PageLayout,
                    token: UUID) throws(StorageError) -> NewPost {
        try store.insertPost(userID: userID, title: title, content: content, contentHTML: contentHTML,
                             categories: categories, weight: weight,
                             place: place, photos: photos, at: date, layout: layout, token: token)
    }
    func claimPostToken(_ token: UUID) throws(StorageError) -> Int64? { try store.claimPostToken(token) }
    func deletePostTokens(before date: Date) throws(StorageError) { try store.deletePostTokens(before: date) }
    func removePost(id: Int64, ofUserID userID: Int64?, tombstone: Bool) throws(StorageError) -> PostRecord? {
        try store.removePost(id: id, ofUserID: userID, tombstone: tombstone)
    }
    func deletedPostIDs(ofUserID userID: Int64) throws(StorageError) -> [Int64] { try store.deletedPostIDs(ofUserID: userID) }
    func trashPost(id: Int64, ofUserID userID: Int64, at date: Date) throws(StorageError) -> PostRecord? {
        try store.trashPost(id: id, ofUserID: userID, at: date)
    }
    func trashedPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [TrashedPost] {
        try store.trashedPosts(ofUserID: userID, limit: limit)
    }
    func restorePost(id: Int64, ofUserID userID: Int64) throws(StorageError) -> PostRecord? {
        try store.restorePost(id: id, ofUserID: userID)
    }
    func purgeTrash(trashedBefore date: Date, limit: Int) throws(StorageError) -> Int {
        try store.purgeTrash(trashedBefore: date, limit: limit)
    }
    func purgeTrashedPost(id: Int64) throws(StorageError) -> Int64? { try store.purgeTrashedPost(id: id) }
    func editPost(id: Int64, ofUserID userID: Int64, _ edit: PostEdit, weight: Int,
                  photoWeight: @escaping @Sendable ([PostPhoto]) -> Int,
                  at date: Date) throws(StorageError) -> EditedPost? {
        try store.editPost(id: id, ofUserID: userID, edit, weight: weight, photoWeight: photoWeight, at: date)
    }
    func setSuspended(userID: Int64, _ suspended: Bool, at date: Date) throws(StorageError) {
        try store.setSuspended(userID: userID, suspended, at: date)
    }
    func updatePassword(userID: Int64, passwordHash: String) throws(StorageError) {
        try store.updatePassword(userID: userID, passwordHash: passwordHash)
    }
    func pageGroups(ofUserID userID: Int64, limit: Int?) throws(StorageError) -> [PageGroup] {
        try store.pageGroups(ofUserID: userID, limit: limit)
    }
    func newestPosts(ofUserID userID: Int64) throws(StorageError) -> [PostStub] {
        try store.newestPosts(ofUserID: userID)
    }
    func postStubs(ofUserID userID: Int64, pages: ClosedRange<Int>) throws(StorageError) -> [PostStub] {
        try store.postStubs(ofUserID: userID, pages: pages)
    }
    func adjacentPosts(to post: PostStub, ofUserID userID: Int64) throws(StorageError) -> AdjacentPosts {
        try store.adjacentPosts(to: post, ofUserID: userID)
    }
    func recentPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostRecord] {
        try store.recentPosts(ofUserID: userID, limit: limit)
    }
    func placedPosts(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostRecord] {
        try store.placedPosts(ofUserID: userID, limit: limit)
    }
    func taggedPosts(_ tag: String, ofUserID userID: Int64?, before: Int64?,
                     limit: Int) throws(StorageError) -> [AuthoredPost] {
        try store.taggedPosts(tag, ofUserID: userID, before: before, limit: limit)
    }
    func tags(ofUserID userID: Int64, prefix: String, limit: Int) throws(StorageError) -> [String] {
        try store.tags(ofUserID: userID, prefix: prefix, limit: limit)
    }
    func searchPosts(_ query: SearchQuery, ofUserID userID: Int64?, offset: Int,
                     limit: Int) throws(StorageError) -> [AuthoredPost] {
        try store.searchPosts(query, ofUserID: userID, offset: offset, limit: limit)
    }
    func postHeadings(ofUserID userID: Int64, limit: Int) throws(StorageError) -> [PostHeading] {
        try store.postHeadings(ofUserID: userID, limit: limit)
    }
    func recentPosts(limit: Int) throws(StorageError) -> [AuthoredPost] { try store.recentPosts(limit: limit) }
    func posts(ids: [Int64]) throws(StorageError) -> [PostRecord] { try store.posts(ids: ids) }
    func storePhoto(_ photo: PostPhoto, userID: Int64, image: [UInt8], thumbnail: [UInt8],
                    at date: Date) throws(StorageError) {
        try store.storePhoto(photo, userID: userID, image: image, thumbnail: thumbnail, at: date)
    }
    func photoData(name: String) throws(StorageError) -> (image: [UInt8], thumbnail: [UInt8])? {
        try store.photoData(name: name)
    }
    func deletePhotos(unattachedBefore date: Date) throws(StorageError) -> [PostPhoto] {
        try store.deletePhotos(unattachedBefore: date)
    }
    func photos(ofUserID userID: Int64) throws(StorageError) -> [PostPhoto] { try store.photos(ofUserID: userID) }
    func allUsers() throws(StorageError) -> [UserRecord] { try store.allUsers() }
    func blogIndex(limit: Int) throws(StorageError) -> [BlogEntry] { try store.blogIndex(limit: limit) }
    func blogIndex(activeSince date: Date, limit: Int) throws(StorageError) -> [BlogEntry] {
        try store.blogIndex(activeSince: date, limit: limit)
    }
    func userSummaries() throws(StorageError) -> [UserSummary] { try store.userSummaries() }
    func grantLease(userKey: String, address: String, until expiry: Date) throws(StorageError) {
        try store.grantLease(userKey: userKey, address: address, until: expiry)
    }
    func leaseExpiry(userKey: String, address: String) throws(StorageError) -> Date? {
        try store.leaseExpiry(userKey: userKey, address: address)
    }
    func deleteLeases(expiredBefore date: Date) throws(StorageError) { try store.deleteLeases(expiredBefore: date) }
    func blogSettings(ofUserID userID: Int64) throws(StorageError) -> BlogSettings {
        try store.blogSettings(ofUserID: userID)
    }
    func setBlogSettings(_ settings: BlogSettings, ofUserID userID: Int64, at date: Date) throws(StorageError) {
        try store.setBlogSettings(settings, ofUserID: userID, at: date)
    }
    func sitemapPosts(after id: Int64, limit: Int) throws(StorageError) -> [SitemapPost] {
        try store.sitemapPosts(after: id, limit: limit)
    }
    func siteValue(_ key: String, storingIfAbsent value: String) throws(StorageError) -> String {
        try store.siteValue(key, storingIfAbsent: value)
    }
    func recordLoginFailure(userKey: String, address: String, at date: Date,
                            policy: LoginThrottle.Policy) throws(StorageError) -> LoginFailures {
        try store.recordLoginFailure(userKey: userKey, address: address, at: date, policy: policy)
    }
    func loginFailures(userKey: String, address: String) throws(StorageError) -> LoginFailures? {
        try store.loginFailures(userKey: userKey, address: address)
    }
    func deleteStaleLoginFailures(at date: Date, policy: LoginThrottle.Policy) throws(StorageError) -> Int {
        try store.deleteStaleLoginFailures(at: date, policy: policy)
    }
    func clearLoginFailures(userKey: String, address: String) throws(StorageError) {
        try store.clearLoginFailures(userKey: userKey, address: address)
    }
    func createToken(userID: Int64, secretHash: String, kind: AccessToken.Kind, scopes: String, label: String,
                     at date: Date, expires: Date?) throws(StorageError) -> AccessToken {
        try store.createToken(userID: userID, secretHash: secretHash, kind: kind, scopes: scopes, label: label,
                              at: date, expires: expires)
    }
    func token(secretHash: String) throws(StorageError) -> AccessToken? { try store.token(secretHash: secretHash) }
    func tokens(ofUserID userID: Int64) throws(StorageError) -> [AccessToken] { try store.tokens(ofUserID: userID) }
    func deleteToken(id: Int64, ofUserID userID: Int64) throws(StorageError) -> Bool {
        try store.deleteToken(id: id, ofUserID: userID)
    }
    func deleteTokens(ofUserID userID: Int64, kind: AccessToken.Kind?) throws(StorageError) -> Int {
        try store.deleteTokens(ofUserID: userID, kind: kind)
    }
    func deleteTokens(expiredBefore date: Date) throws(StorageError) -> Int { try store.deleteTokens(expiredBefore: date) }
    func ping() throws(StorageError) { try store.ping() }
    func close() throws(StorageError) { try store.close() }
    func storeAuthorizationCode(_ code: AuthorizationCode) throws(StorageError) { try store.storeAuthorizationCode(code) }
    func authorizationCode(hash codeHash: String) throws(StorageError) -> AuthorizationCode? {
        try store.authorizationCode(hash: codeHash)
    }
    func claimAuthorizationCode(hash codeHash: String, at date: Date) throws(StorageError) -> AuthorizationCodeClaim {
        try store.claimAuthorizationCode(hash: codeHash, at: date)
    }
    func setAuthorizationCodeToken(hash codeHash: String, tokenID: Int64) throws(StorageError) {
        try store.setAuthorizationCodeToken(hash: codeHash, tokenID: tokenID)
    }
    func deleteAuthorizationCodes(expiredBefore date: Date) throws(StorageError) -> Int {
        try store.deleteAuthorizationCodes(expiredBefore: date)
    }
}
