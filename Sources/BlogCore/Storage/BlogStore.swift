import Foundation
import GRDB

/// Users and posts in SQLite: the source of truth.
///
/// A WAL `DatabasePool` lets readers (such as `blogd users`) run beside the
/// server; `synchronous = FULL` makes every commit reach the disk before
/// the call returns, so an OK reply can promise durability.
public final class BlogStore: Sendable {
    let pool: DatabasePool
    /// Inserts from many clients share transactions (and fsyncs).
    let commits: GroupCommit
    private let gate = CloseGate()
    public let path: String

    /// Opens (or, with `create`, creates) the database at `path` and brings
    /// its schema up to date. A read-only store never migrates.
    public init(path: String, create: Bool = true, readOnly: Bool = false) throws(StorageError) {
        self.path = path
        if !create || readOnly {
            guard FileManager.default.fileExists(atPath: path) else { throw .missing(path: path) }
        }
        var config = Configuration()
        config.readonly = readOnly
        config.busyMode = .timeout(10)
        config.label = "blogd"
        do {
            if create && !readOnly {
                let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
            pool = try DatabasePool(path: path, configuration: config)
            commits = GroupCommit(pool: pool)
            if !readOnly {
                // GRDB picks NORMAL for WAL; NORMAL may lose the last commits
                // on power loss, which would break the promise of an OK reply.
                try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
                try Schema.migrator.migrate(pool)
            }
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
    }

    /// Closes every connection; later calls fail.
    public func close() throws(StorageError) {
        _ = try gate.close { () throws(StorageError) in
            do { try pool.close() } catch { throw .failed(Self.reason(error)) }
        }
    }

    /// Inserts a user; `.nameTaken` when the name exists in any case.
    /// Returns once the commit is on disk.
    public func createUser(name: String, passwordHash: String, at date: Date) throws(StorageError) -> UserRecord {
        let user = UserRecord(id: nil, name: name, passwordHash: passwordHash, createdAt: date)
        return try gate.pass { () throws(StorageError) in try insert(user) }
    }

    /// Deletes a user (and, by cascade, their posts).
    public func deleteUser(id: Int64) throws(StorageError) {
        try gate.pass { () throws(StorageError) in try delete(UserRecord.self, id) }
    }

    /// Deletes one post.
    public func deletePost(id: Int64) throws(StorageError) {
        try gate.pass { () throws(StorageError) in try delete(PostRecord.self, id) }
    }

    private func delete<Record: MutablePersistableRecord>(_ type: Record.Type, _ id: Int64) throws(StorageError) {
        do {
            _ = try commits.write { db in try Record.deleteOne(db, key: id) }
        } catch {
            throw .failed(Self.reason(error))
        }
    }

    /// The user of that name, compared regardless of case.
    public func user(named name: String) throws(StorageError) -> UserRecord? {
        try read { db in
            try UserRecord.filter(sql: "name = ?", arguments: [name]).fetchOne(db)
        }
    }

    /// Inserts a post of an existing user. Returns once the commit is on
    /// disk; concurrent inserts share one commit.
    public func addPost(userID: Int64, title: String, content: String, at date: Date) throws(StorageError) -> PostRecord {
        let post = PostRecord(id: nil, userID: userID, title: title, content: content, createdAt: date)
        return try gate.pass { () throws(StorageError) in try insert(post) }
    }

    /// Inserts through group commit, mapping the constraint a caller can
    /// cause (a taken name, an unknown user) to its own error.
    private func insert<Record: MutablePersistableRecord & Sendable>(_ record: Record) throws(StorageError) -> Record {
        do {
            return try commits.write { db in
                var record = record
                try record.insert(db)
                return record
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw .nameTaken
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
            throw .unknownUser
        } catch {
            throw .failed(Self.reason(error))
        }
    }

    /// A user's posts, newest first.
    public func posts(ofUserID userID: Int64) throws(StorageError) -> [PostRecord] {
        try read { db in
            try PostRecord.filter(sql: "user_id = ?", arguments: [userID])
                .order(sql: "id DESC").fetchAll(db)
        }
    }

    /// A user's posts, oldest first.
    public func postsOldestFirst(ofUserID userID: Int64) throws(StorageError) -> [PostRecord] {
        try read { db in
            try PostRecord.filter(sql: "user_id = ?", arguments: [userID]).order(sql: "id").fetchAll(db)
        }
    }

    /// A user's post ids, oldest first.
    public func postIDs(ofUserID userID: Int64) throws(StorageError) -> [Int64] {
        try read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM posts WHERE user_id = ? ORDER BY id", arguments: [userID])
        }
    }

    /// Every user, by id.
    public func allUsers() throws(StorageError) -> [UserRecord] {
        try read { db in try UserRecord.order(sql: "id").fetchAll(db) }
    }

    /// Transactions committed by group commit, and the writes they held.
    public var commitStatistics: (batches: Int, writes: Int) { commits.statistics }

    /// Every user with post count and last post time, by name.
    public func userSummaries() throws(StorageError) -> [UserSummary] {
        try read { db in
            try UserSummary.fetchAll(db, sql: """
                SELECT u.name, u.created_at AS registered_at,
                       COUNT(p.id) AS posts, MAX(p.created_at) AS last_post_at
                FROM users u LEFT JOIN posts p ON p.user_id = u.id
                GROUP BY u.id
                ORDER BY u.name
                """)
        }
    }

    /// Every blog with its newest post time, for the index page. One index
    /// lookup per user, so its cost does not grow with the posts.
    public func blogIndex() throws(StorageError) -> [BlogEntry] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT u.name,
                       (SELECT p.created_at FROM posts p WHERE p.user_id = u.id ORDER BY p.id DESC LIMIT 1) AS last
                FROM users u
                """).map { BlogEntry(name: $0["name"], lastPostAt: $0["last"]) }
        }
    }

    /// The value of a pragma on the writer connection (for tests and checks).
    public func writerPragma(_ name: String) throws(StorageError) -> String? {
        try gate.pass { () throws(StorageError) in
            do {
                return try pool.writeWithoutTransaction { db in
                    try String.fetchOne(db, sql: "PRAGMA \(name)")
                }
            } catch {
                throw .failed(Self.reason(error))
            }
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws(StorageError) -> T {
        try gate.pass { () throws(StorageError) in
            do { return try pool.read(body) } catch { throw .failed(Self.reason(error)) }
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
        return "\(error)"
    }
}
