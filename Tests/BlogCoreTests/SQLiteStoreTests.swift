import Foundation
import BlogTestSupport
import GRDB
import Testing
import BlogModel
@testable import BlogCore
@testable import BlogSQLite

@Suite("SQLiteStore")
struct SQLiteStoreTests {
    private let t0 = TestClock.start

    private func withStore<T>(_ body: (SQLiteStore, URL) throws -> T) throws -> T {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            return try body(store, folder)
        }
    }

    /// Holds `commits` inside a batch, with a write that waits, until the
    /// returned closure is called; that closure returns once the batch is
    /// done. On a thread of its own: Dispatch's pool grows only slowly when
    /// its workers block.
    private func holdBatch(of commits: GroupCommit) -> @Sendable () -> Void {
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread {
            _ = try? commits.write { _ in
                holding.signal()
                release.wait()
            }
            done.signal()
        }.start()
        holding.wait()
        return {
            release.signal()
            done.wait()
        }
    }

    @Test func openMissingWithoutCreate() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("nothing.sqlite").path
            #expect(storageError { _ = try SQLiteStore(path: path, create: false) } == .missing(path: path))
            #expect(storageError { _ = try SQLiteStore(path: path, readOnly: true) } == .missing(path: path))
            #expect(!FileManager.default.fileExists(atPath: path), "nothing was created")
        }
    }

    @Test func createMakesMissingFolders() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("a/b/blog.sqlite").path
            let store = try SQLiteStore(path: path)
            #expect(store.path == path)
            try store.close()
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func cannotOpenAFolder() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let error = storageError { _ = try SQLiteStore(path: folder.path) }
            guard case .cannotOpen(let path, _) = error else {
                Issue.record("expected cannotOpen, got \(String(describing: error))")
                return
            }
            #expect(path == folder.path)
        }
    }

    @Test func cannotOpenGarbage() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("garbage.sqlite").path
            try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))
            let error = storageError { _ = try SQLiteStore(path: path) }
            guard case .cannotOpen = error else {
                Issue.record("expected cannotOpen, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func readOnlyStoreSeesOtherWriters() throws {
        try withStore { (writer: SQLiteStore, _: URL) throws in
            let reader = try SQLiteStore(path: writer.path, readOnly: true)
            defer { try? reader.close() }
            #expect(try reader.user(named: "alice") == nil)
            let alice = try writer.createUser(name: "alice", passwordHash: "h", at: t0)
            _ = try writer.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            #expect(try reader.user(named: "ALICE")?.name == "alice")
            #expect(try reader.posts(ofUserID: alice.id).count == 1)
            #expect(try reader.userSummaries().map(\.postCount) == [1])
        }
    }

    @Test func readOnlyStoreCannotWrite() throws {
        try withStore { (writer: SQLiteStore, _: URL) throws in
            let reader = try SQLiteStore(path: writer.path, readOnly: true)
            defer { try? reader.close() }
            let error = storageError { _ = try reader.createUser(name: "bob", passwordHash: "h", at: t0) }
            // SQLITE_READONLY (8), as SQLite said it.
            guard case .sqlite(let code, _) = error else {
                Issue.record("expected a SQLite code, got \(String(describing: error))")
                return
            }
            #expect(code & 0xff == 8)
            #expect(try writer.user(named: "bob") == nil)
        }
    }

    @Test func dataSurvivesCloseAndReopen() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("blog.sqlite").path
            let first = try SQLiteStore(path: path)
            let alice = try first.createUser(name: "Alice", passwordHash: "hash", at: t0)
            let post = try first.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            try first.close()

            let second = try SQLiteStore(path: path, create: false)
            defer { try? second.close() }
            #expect(try second.user(named: "alice") == alice)
            #expect(try second.posts(ofUserID: alice.id) == [post])
            #expect(storageError { _ = try second.createUser(name: "ALICE", passwordHash: "h", at: t0) } == .nameTaken)
        }
    }

    @Test func newerQueries() throws {
        try withStore { (store: SQLiteStore, _: URL) throws in
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let alice = try store.createUser(name: "Alice", passwordHash: "h", at: t0)
            #expect(try store.allUsers().map(\.name) == ["bob", "Alice"], "by id")
            for index in 0 ..< 4 {
                _ = try store.addPost(userID: index % 2 == 0 ? alice.id : bob.id, title: "t\(index)", content: "", at: t0)
            }
            let oldest = try store.posts(ofUserID: alice.id).reversed()
            #expect(oldest.map(\.title) == ["t0", "t2"])
            #expect(try store.postIDs(ofUserID: alice.id) == oldest.map { $0.id })
            #expect(try store.posts(ofUserID: alice.id) == oldest.reversed())
            #expect(try store.postIDs(ofUserID: 999).isEmpty)
        }
    }

    @Test func groupCommitFailuresStayWithTheirCaller() throws {
        try withStore { (store: SQLiteStore, _: URL) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let results = Collector<(Int, StorageError?)>()
            DispatchQueue.concurrentPerform(iterations: 90) { index in
                switch index % 3 {
                case 0: // a new user each
                    results.append((0, storageError { _ = try store.createUser(name: "user\(index)", passwordHash: "h", at: t0) }))
                case 1: // a taken name
                    results.append((1, storageError { _ = try store.createUser(name: "ALICE", passwordHash: "h", at: t0) }))
                default: // half to a real user, half to none
                    let id = index % 2 == 0 ? alice.id : 424_242
                    results.append((id == 424_242 ? 3 : 2, storageError { _ = try store.addPost(userID: id, title: "t", content: "c", at: t0) }))
                }
            }
            let all = results.all
            #expect(all.count == 90)
            #expect(all.filter { $0.0 == 0 }.allSatisfy { $0.1 == nil })
            #expect(all.filter { $0.0 == 1 }.allSatisfy { $0.1 == .nameTaken })
            #expect(all.filter { $0.0 == 2 }.allSatisfy { $0.1 == nil })
            #expect(all.filter { $0.0 == 3 }.allSatisfy { $0.1 == .unknownUser })
            #expect(try store.allUsers().count == 31)
            #expect(try store.posts(ofUserID: alice.id).count == all.filter { $0.0 == 2 }.count)
            let statistics = store.commitStatistics
            #expect(statistics.writes == 91, "every write went through a batch")
            #expect(statistics.batches >= 1 && statistics.batches <= 91)
        }
    }

    @Test func groupCommitSequentialWrites() throws {
        try withStore { (store: SQLiteStore, _: URL) throws in
            for index in 0 ..< 5 { _ = try store.createUser(name: "u\(index)", passwordHash: "h", at: t0) }
            #expect(store.commitStatistics.batches == 5)
            #expect(store.commitStatistics.writes == 5)
        }
    }

    @Test func groupCommitBatchLimit() throws {
        try withStore { (store: SQLiteStore, _: URL) throws in
            let commits = GroupCommit(pool: store.pool, maxBatch: 3)
            let failures = Collector<String>()
            DispatchQueue.concurrentPerform(iterations: 30) { index in
                do {
                    try commits.write { db in
                        try db.execute(sql: "INSERT INTO users (name, password_hash, created_at) VALUES (?, 'h', '2027-01-15 08:00:00.000')",
                                       arguments: ["n\(index)"])
                    }
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all.isEmpty)
            #expect(commits.statistics.writes == 30)
            #expect(commits.statistics.batches >= 10, "no batch holds more than 3 writes")
            #expect(try store.allUsers().count == 30)
        }
    }

    @Test func groupCommitReturnsValueAndRethrows() throws {
        struct Refused: Error, Equatable {}
        try withStore { (store: SQLiteStore, _: URL) throws in
            let commits = GroupCommit(pool: store.pool)
            let count = try commits.write { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users") ?? -1 }
            #expect(count == 0)
            #expect(throws: Refused()) {
                try commits.write { db -> Int in
                    try db.execute(sql: "INSERT INTO users (name, password_hash, created_at) VALUES ('x', 'h', 't')")
                    throw Refused()
                }
            }
            // The failed write was rolled back alone.
            #expect(try store.user(named: "x") == nil)
        }
    }

    /// A batch whose commit fails (here a deferred foreign key that only
    /// the commit checks) is rolled back and its writes are retried one by
    /// one: the bad write is refused, its batch mates are stored, and every
    /// write is acknowledged exactly when it is stored, exactly once.
    @Test func failedBatchCommitRetriesItsWritesAlone() throws {
        try withStore { (store: SQLiteStore, _: URL) throws in
            try store.pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE parent (id INTEGER PRIMARY KEY);
                    CREATE TABLE child (id INTEGER PRIMARY KEY, tag TEXT NOT NULL UNIQUE,
                        parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                    """)
            }
            // No deadline to speak of: the writes wait for the blocker on purpose.
            let commits = GroupCommit(pool: store.pool, maxBatch: 4, deadline: 3600)
            // Hold the committer busy so the 40 writes queue up and form
            // full batches, each bad write among three good ones.
            let releaseBatch = holdBatch(of: commits)
            let acknowledged = Collector<String>()
            let refused = Collector<String>()
            // Threads of their own: Dispatch's pool grows only slowly when
            // its workers block, and the writes must all queue up at once.
            let writers = DispatchGroup()
            for index in 0 ..< 40 {
                writers.enter()
                Thread {
                    defer { writers.leave() }
                    let tag = "t\(index)"
                    do {
                        try commits.write { db in
                            // Every tenth write points at a parent that does not exist.
                            let parent: Int? = index % 10 == 0 ? 99 : nil
                            try db.execute(sql: "INSERT INTO child (tag, parent_id) VALUES (?, ?)", arguments: [tag, parent])
                        }
                        acknowledged.append(tag)
                    } catch {
                        refused.append(tag)
                    }
                }.start()
            }
            // (A guard of 60 s, not a timing: they queue up at once.)
            waitUntil(timeout: 60) { commits.waitingCount == 40 }
            releaseBatch()
            writers.wait()
            #expect(commits.failedBatches >= 1, "a batch commit failed and was retried write by write; \(commits.statistics), refused \(refused.all.sorted())")
            let stored = try store.pool.read { db in try String.fetchAll(db, sql: "SELECT tag FROM child") }
            #expect(Set(stored) == Set(acknowledged.all), "stored means acknowledged, and the reverse")
            #expect(stored.count == Set(stored).count, "each stored once")
            #expect(acknowledged.all.count + refused.all.count == 40)
            for index in stride(from: 0, to: 40, by: 10) {
                #expect(refused.all.contains("t\(index)"), "the poisoned write t\(index) is refused")
            }
            #expect(refused.all.count == 4, "only the bad writes are refused: \(refused.all.sorted())")
        }
    }

    /// A write that waits for its batch past the deadline is taken out of
    /// the queue: it fails with `.deadlineExceeded` and is never made, even
    /// once the batch ahead of it is done.
    @Test func groupCommitGivesUpOnAWriteWaitingPastTheDeadline() throws {
        try withStore { (store: SQLiteStore, _: URL) throws in
            let commits = GroupCommit(pool: store.pool, deadline: 0.5)
            // In its batch already: it runs to its end, deadline or not.
            let releaseBatch = holdBatch(of: commits)
            #expect(throws: StorageError.deadlineExceeded(seconds: 0.5)) {
                try commits.write { db in
                    try db.execute(sql: "INSERT INTO users (name, password_hash, created_at) VALUES ('late', 'h', 't')")
                }
            }
            releaseBatch()
            try commits.write { db in
                try db.execute(sql: "INSERT INTO users (name, password_hash, created_at) VALUES ('next', 'h', 't')")
            }
            let names = try store.pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM users") }
            #expect(names == ["next"], "given up means never made")
        }
    }

    /// No thread of its own: a lone write is committed on its caller's
    /// thread, and the `committed` callback runs there too.
    @Test func aLoneWriteCommitsOnItsCallersThread() throws {
        try withStore { (store: SQLiteStore, _: URL) throws in
            let commits = GroupCommit(pool: store.pool)
            let caller = pthread_self()
            let committer = Collector<pthread_t>()
            let writer = try commits.write({ _ in pthread_self() }, committed: { _ in committer.append(pthread_self()) })
            #expect(pthread_equal(writer, caller) != 0)
            #expect(committer.all.count == 1 && pthread_equal(committer.all[0], caller) != 0)
        }
    }

    /// The writer that commits a batch hands the next one to the first
    /// writer still waiting, passing over one that gave up at its own
    /// request's deadline: that one is never made, the next one is.
    @Test func theNextBatchPassesOverAWriterThatGaveUp() throws {
        try withStore { (store: SQLiteStore, _: URL) throws in
            let commits = GroupCommit(pool: store.pool, deadline: 3600)
            @Sendable func insert(_ name: String) throws {
                try commits.write { db in
                    try db.execute(sql: "INSERT INTO users (name, password_hash, created_at) VALUES (?, 'h', 't')", arguments: [name])
                }
            }
            let releaseBatch = holdBatch(of: commits)
            // Its request's deadline passes while the batch ahead holds on.
            #expect(throws: StorageError.deadlineExceeded(seconds: 3600)) {
                try RequestDeadline.$end.withValue(.now + .milliseconds(100)) { try insert("late") }
            }
            let outcome = Collector<String>()
            let writers = DispatchGroup()
            writers.enter()
            Thread {
                defer { writers.leave() }
                do { try insert("next"); outcome.append("stored") } catch { outcome.append("\(error)") }
            }.start()
            // Both wait in the queue, the given-up one first.
            // (A guard of 60 s, not a timing: the count is reached at once.)
            #expect(waitUntil(timeout: 60) { commits.waitingCount == 2 })
            releaseBatch()
            writers.wait()
            #expect(outcome.all == ["stored"])
            let names = try store.pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM users") }
            #expect(names == ["next"], "given up means never made")
            #expect(commits.waitingCount == 0)
        }
    }

    /// Another process holding the database's write lock past the deadline
    /// fails the write with `.deadlineExceeded`, and nothing of it is stored.
    @Test func writeLockHeldElsewhereFailsAtTheDeadline() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("blog.sqlite").path
            let store = try SQLiteStore(path: path, deadline: 0.5)
            defer { try? store.close() }
            let other = try DatabaseQueue(path: path)
            let locked = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let holder = DispatchGroup()
            DispatchQueue.global().async(group: holder) {
                try? other.inDatabase { db in
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    locked.signal()
                    release.wait()
                    try db.execute(sql: "ROLLBACK")
                }
            }
            locked.wait()
            #expect(throws: StorageError.deadlineExceeded(seconds: 0.5)) {
                try store.createUser(name: "alice", passwordHash: "h", at: t0)
            }
            release.signal()
            holder.wait()
            #expect(try store.user(named: "alice") == nil)
            _ = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            #expect(try store.user(named: "alice") != nil)
        }
    }

    @Test func errorDescriptions() {
        #expect(StorageError.nameTaken.description == "name taken")
        #expect(StorageError.unknownUser.description == "unknown user")
        #expect(StorageError.missing(path: "/x").description == "no database at /x")
        #expect(StorageError.cannotOpen(path: "/x", reason: "r").description == "cannot open database /x: r")
        #expect(StorageError.failed("r").description == "database failure: r")
        #expect(StorageError.sqlite(code: 13, message: "database or disk is full").description
                == "database failure: SQLite 13: database or disk is full")
        #expect(StorageError.postgres(sqlState: "23514", message: "m").description == "database failure: SQLSTATE 23514: m")
        #expect(StorageError.closed.description == "the database is closed")
    }
}
