import BlogWire
import Foundation

/// What the service needs of a database: users, posts, and the page groups
/// posts fall into. `SQLiteStore` keeps them in SQLite;
/// another backend (PostgreSQL) implements the same calls. It is made of
/// one protocol per concern, so that a part needing one (`AccessTokens`:
/// `TokenStorage`; `LoginLeases` and `LoginThrottle`: `LoginStateStorage`)
/// takes only that one.
///
/// Every write returns once its commit is durable, so an OK reply sent
/// after it keeps its promise.
///
///     let storage: any BlogStorage = try SQLiteStore(path: "data/blog.sqlite")
///     let alice = try storage.createUser(name: "alice", passwordHash: hash, at: Date())
public protocol BlogStorage: UserStorage, PostStorage, TrashStorage, PhotoStorage, LoginStateStorage,
    TokenStorage, SiteStorage, AuthorizationCodeStorage, BlogSettingsStorage, SitemapStorage, WebmentionOutbox,
    TagStorage, SearchStorage, WebmentionStorage, ActivityPubStorage, InstanceKeyStorage,
    WebmentionHolds {}

/// Failed logins of one user from one address: how many since
/// `firstFailure`, and until when logins are refused.
public struct LoginFailures: Sendable, Equatable {
    public var failures: Int
    public var firstFailure: Date
    public var lockedUntil: Date?

    public init(failures: Int, firstFailure: Date, lockedUntil: Date?) {
        self.failures = failures
        self.firstFailure = firstFailure
        self.lockedUntil = lockedUntil
    }
}

/// A post just stored.
public struct NewPost: Sendable {
    public var record: PostRecord

    public init(record: PostRecord) {
        self.record = record
    }
}

extension PostStorage {
    /// `insertPost` with no tags beside the text (its hashtags are still
    /// its tags).
    public func insertPost(userID: Int64, title: String, content: String, contentHTML: String?, weight: Int,
                           place: Place?, photos: [PhotoAttachment], at date: Date, layout: PageLayout,
                           token: UUID) throws(StorageError) -> NewPost {
        try insertPost(userID: userID, title: title, content: content, contentHTML: contentHTML, categories: [],
                       weight: weight, place: place, photos: photos, at: date, layout: layout, token: token)
    }

    /// `insertPost` with photos by name (no alt text) and no HTML source.
    public func insertPost(userID: Int64, title: String, content: String, weight: Int, place: Place?, photos: [String],
                           at date: Date, layout: PageLayout, token: UUID = UUID()) throws(StorageError) -> NewPost {
        try insertPost(userID: userID, title: title, content: content, contentHTML: nil, categories: [], weight: weight,
                       place: place, photos: PostPhoto.attachments(photos), at: date, layout: layout, token: token)
    }

    /// `insertPost` of a post with no photos.
    public func insertPost(userID: Int64, title: String, content: String, weight: Int, place: Place?, at date: Date,
                           layout: PageLayout, token: UUID = UUID()) throws(StorageError) -> NewPost {
        try insertPost(userID: userID, title: title, content: content, weight: weight, place: place, photos: [],
                       at: date, layout: layout, token: token)
    }

    /// `insertPost` of a post with no place and no photos.
    public func insertPost(userID: Int64, title: String, content: String, weight: Int, at date: Date,
                           layout: PageLayout, token: UUID = UUID()) throws(StorageError) -> NewPost {
        try insertPost(userID: userID, title: title, content: content, weight: weight, place: nil, photos: [],
                       at: date, layout: layout, token: token)
    }

    /// `insertPost`, for callers that need the record only.
    public func addPost(userID: Int64, title: String, content: String, weight: Int, at date: Date,
                        layout: PageLayout) throws(StorageError) -> PostRecord {
        try insertPost(userID: userID, title: title, content: content, weight: weight, place: nil, photos: [],
                       at: date, layout: layout, token: UUID()).record
    }

    /// Takes back one post, whoever wrote it, leaving no tombstone.
    public func deletePost(id: Int64) throws(StorageError) {
        _ = try removePost(id: id, ofUserID: nil, tombstone: false)
    }

    /// Ids of the user's posts in `pages`, newest first.
    public func postIDs(ofUserID userID: Int64, pages: ClosedRange<Int>) throws(StorageError) -> [Int64] {
        try postStubs(ofUserID: userID, pages: pages).map(\.id)
    }

    /// A user's posts, newest first (for tests and tools).
    public func posts(ofUserID userID: Int64) throws(StorageError) -> [PostRecord] {
        let ids = try postIDs(ofUserID: userID, pages: 1...Int(Int32.max))
        let byID = Dictionary(try posts(ids: ids).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.compactMap { byID[$0] }
    }
}
