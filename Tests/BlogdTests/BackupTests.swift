import BlogCore
import BlogSQLite
import BlogTestSupport
import Foundation
import Synchronization
import Testing

/// `blogd backup`, the real binary, against a server that keeps taking
/// posts: a backup restored as a fresh database rebuilds the very pages
/// the database it was taken from renders for the same commits.
@Suite(.serialized)
struct BackupTests {
    let folder: URL
    /// Cheap scrypt; archive pages of 5 posts, so that the rebuilt pages
    /// include closed groups; one base URL for every process (the feeds'
    /// and the pages' absolute links).
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_PAGE_SIZE": "5",
                       "BLOGD_BASE_URL": "http://blog.test/"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("live/public"), withIntermediateDirectories: true)
    }

    func path(_ relative: String) -> String { folder.appendingPathComponent(relative).path }
    var db: String { path("live/blog.sqlite") }

    func blogd(_ arguments: [String], input: String? = nil) throws -> (status: Int32, out: String, err: String) {
        try runBlogd(arguments, environment: environment, input: input)
    }

    /// Copies `database` to `name/blog.sqlite` and runs `blogd rebuild` on
    /// it into `name/public`; returns that folder.
    func restoreAndRebuild(_ database: String, as name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: path(name + "/public"), withIntermediateDirectories: true)
        try copyDatabase(database, to: path(name + "/blog.sqlite"))
        let rebuilt = try blogd(["rebuild", "--db", path(name + "/blog.sqlite"), "--public", path(name + "/public")])
        #expect(rebuilt.status == 0, "\(rebuilt.err)")
        return path(name + "/public")
    }

    /// Copies a database file with its WAL, which holds the last commits
    /// until a checkpoint (what `blogd backup` spares an operator).
    func copyDatabase(_ database: String, to copy: String) throws {
        try FileManager.default.copyItem(atPath: database, toPath: copy)
        if FileManager.default.fileExists(atPath: database + "-wal") {
            try FileManager.default.copyItem(atPath: database + "-wal", toPath: copy + "-wal")
        }
    }

    /// Every file under `root` (relative path) and its bytes.
    func tree(_ root: String, only: (String) -> Bool = { _ in true }) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isFolder),
                  !isFolder.boolValue, only(relative) else { continue }
            files[relative] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative))
        }
        return files
    }

    func expectSameTree(_ a: [String: Data], _ b: [String: Data], _ context: String,
                        sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Set(a.keys) == Set(b.keys), "\(context): files differ", sourceLocation: sourceLocation)
        let differing = a.keys.filter { b[$0] != nil && a[$0] != b[$0] }.sorted()
        #expect(differing.isEmpty, "\(context): bytes differ in \(differing.prefix(5))", sourceLocation: sourceLocation)
    }

    /// Every post of the database at `path`, by id: (author, title, content).
    func posts(in path: String) throws -> [Int64: [String]] {
        let store = try SQLiteStore(path: path, create: false, readOnly: true)
        defer { try? store.close() }
        return Dictionary(uniqueKeysWithValues: try store.recentPosts(limit: 1_000_000).map {
            ($0.post.id, [$0.author, $0.post.title, $0.post.content])
        })
    }

    @Test func aBackupUnderLoadRestoresToTheSamePages() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--db", db, "--public", path("live/public")],
                                      environment: environment)
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        let names = ["alice", "bob", "carol"]
        for name in names {
            #expect(try exchange("register:\(name):pw[E];", port: port) == "reg:OK[E];")
        }

        // One client posting as fast as the server answers, until told.
        let posting = Posting()
        let poster = Thread {
            var number = 0
            while !posting.stop.load(ordering: .relaxed) {
                let name = names[number % names.count]
                let message = "newpost:\(name):Post \(number):Text of post \(number) <b>&amp;</b>\nsecond line[E];"
                let reply = (try? exchange(message, port: port)) ?? "no reply"
                if reply == "post:OK[E];" {
                    posting.acknowledged.add(1, ordering: .relaxed)
                } else {
                    posting.failures.withLock { $0.append(reply) }
                }
                number += 1
            }
            posting.stopped.store(true, ordering: .relaxed)
        }
        poster.start()
        defer { posting.finish() }
        #expect(waitUntil(timeout: 120) { posting.acknowledged.load(ordering: .relaxed) >= 30 }, "posting under way")

        let firstBackup = path("first.backup")
        let taken = try blogd(["backup", firstBackup, "--db", db])
        #expect(taken.status == 0, "\(taken.err)")
        #expect(taken.out.contains("backed up"))
        let afterBackup = posting.acknowledged.load(ordering: .relaxed)
        #expect(waitUntil(timeout: 120) { posting.acknowledged.load(ordering: .relaxed) >= afterBackup + 10 },
                "posts go on after the backup")
        #expect(posting.finish(), "the poster stopped")
        let failures = posting.failures.withLock { $0 }
        #expect(failures.isEmpty, "\(failures.prefix(3))")

        // A backup never replaces a file, unless told to.
        let firstBytes = try Data(contentsOf: URL(fileURLWithPath: firstBackup))
        let again = try blogd(["backup", firstBackup, "--db", db])
        #expect(again.status == 1 && again.err.contains("exists; give --force to replace it"), "\(again.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: firstBackup)) == firstBytes)

        // Posting stopped: a second backup holds every post.
        let secondBackup = path("second.backup")
        #expect(try blogd(["backup", secondBackup, "--db", db]).status == 0)
        #expect(server.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: firstBackup + "-wal"), "a backup is one file")

        // The first backup holds the commits up to one point: the live
        // posts up to its newest, each as stored, and none after.
        let live = try posts(in: db)
        let backedUp = try posts(in: firstBackup)
        let newest = try #require(backedUp.keys.max())
        #expect(backedUp.count >= 30 && backedUp.count < live.count, "\(backedUp.count) of \(live.count)")
        #expect(backedUp == live.filter { $0.key <= newest }, "the backup is the live database up to post \(newest)")
        #expect(try posts(in: secondBackup) == live)

        // Its pages: a restore of it rebuilds what the live database, taken
        // back to the same point, rebuilds.
        try FileManager.default.createDirectory(atPath: path("reference"), withIntermediateDirectories: true)
        try copyDatabase(db, to: path("reference/live.sqlite"))
        do {
            let reference = try SQLiteStore(path: path("reference/live.sqlite"))
            for id in live.keys where id > newest { try reference.deletePost(id: id) }
            try reference.close()
        }
        let restoredFirst = try restoreAndRebuild(firstBackup, as: "restored-first")
        let referenceFirst = try restoreAndRebuild(path("reference/live.sqlite"), as: "reference-first")
        let firstTree = try tree(restoredFirst)
        #expect(firstTree.keys.contains("alice.1.html"), "archive pages among those compared")
        expectSameTree(firstTree, try tree(referenceFirst), "the first backup against the live database cut at post \(newest)")

        // The second: what a rebuild of the live database writes, and the
        // pages the server wrote.
        let restoredSecond = try restoreAndRebuild(secondBackup, as: "restored-second")
        let rebuiltLive = try restoreAndRebuild(db, as: "rebuilt-live")
        expectSameTree(try tree(restoredSecond), try tree(rebuiltLive), "the second backup against the live database")
        let pages: (String) -> Bool = { $0.hasSuffix(".html") }
        expectSameTree(try tree(restoredSecond, only: pages), try tree(path("live/public"), only: pages),
                       "the second backup's pages against the server's")
    }

    @Test func refusals() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = path("out.backup")

        let postgres = try blogd(["backup", target, "--db", "postgres://blogd@127.0.0.1:1/blog"])
        #expect(postgres.status == 1)
        #expect(postgres.err.contains("pg_dump") && postgres.err.split(separator: "\n").count == 1, "\(postgres.err)")

        let missing = try blogd(["backup", target, "--db", path("nothing.sqlite")])
        #expect(missing.status == 1 && missing.err.contains("no database at \(path("nothing.sqlite"))"), "\(missing.err)")
        #expect(!FileManager.default.fileExists(atPath: path("nothing.sqlite")), "a backup creates no database")

        // A database no server has open (its WAL folded in at close).
        try makeDatabase(db)
        #expect(try blogd(["adduser", "alice", "--db", db, "--public", path("live/public")], input: "pw\n").status == 0)
        let made = try blogd(["backup", target, "--db", db])
        #expect(made.status == 0, "\(made.err)")
        #expect(try posts(in: target).isEmpty)
        let copy = try SQLiteStore(path: target, create: false, readOnly: true)
        #expect(try copy.user(named: "alice") != nil)
        try copy.close()

        #expect(try blogd(["adduser", "bob", "--db", db, "--public", path("live/public")], input: "pw\n").status == 0)
        let kept = try blogd(["backup", target, "--db", db])
        #expect(kept.status == 1 && kept.err.contains("\(target) exists; give --force to replace it"), "\(kept.err)")
        let replaced = try blogd(["backup", target, "--db", db, "--force"])
        #expect(replaced.status == 0, "\(replaced.err)")
        let newer = try SQLiteStore(path: target, create: false, readOnly: true)
        #expect(try newer.user(named: "bob") != nil, "--force replaced the old backup")
        try newer.close()

        for own in [db, db + "-wal", db + ".pagelock"] {
            let onItself = try blogd(["backup", own, "--db", db, "--force"])
            #expect(onItself.status == 1 && onItself.err.contains("is the database or one of its files"), "\(onItself.err)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}

/// The background poster's tally, and its stop.
private final class Posting: Sendable {
    let acknowledged = Atomic<Int>(0)
    let failures = Mutex<[String]>([])
    let stop = Atomic<Bool>(false)
    let stopped = Atomic<Bool>(false)

    /// Tells the poster to stop and waits until it has; whether it did.
    @discardableResult
    func finish() -> Bool {
        stop.store(true, ordering: .relaxed)
        return waitUntil(timeout: 120) { stopped.load(ordering: .relaxed) }
    }
}
