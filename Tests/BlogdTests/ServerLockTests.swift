import BlogSQLite
import BlogTestSupport
import Foundation
import Testing

/// `blogd rebuild` refuses while `blogd serve` holds the same SQLite
/// database, and the other way round (`ServerLock`), with the real binary.
@Suite(.serialized)
struct ServerLockTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-serverlock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var db: String { folder.appendingPathComponent("blog.sqlite").path }
    var data: [String] { ["--db", db, "--public", folder.appendingPathComponent("public").path] }

    func serve() throws -> BlogdProcess {
        try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0"] + data, environment: environment)
    }

    func rebuild() throws -> (status: Int32, out: String, err: String) {
        try runBlogd(["rebuild"] + data, environment: environment)
    }

    /// The last line a process wrote to stderr.
    func lastLine(_ text: String) -> String {
        text.split(separator: "\n").last.map(String.init) ?? ""
    }

    /// Inode and modification time of a page: a refused rebuild changes neither.
    func version(_ name: String) -> String? {
        var info = stat()
        guard stat(folder.appendingPathComponent("public/" + name).path, &info) == 0 else { return nil }
        return "\(info.st_ino) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    @Test func rebuildAndASecondServerAreRefusedWhileAServerRuns() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try serve()
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("newpost:alice:Hello:first[E];", port: port) == "post:OK[E];")
        let page = try #require(version("alice.html"))

        let refused = try rebuild()
        #expect(refused.status == 1)
        #expect(lastLine(refused.err) == "blogd: a server is running on this database; stop it first", "\(refused.err)")
        #expect(version("alice.html") == page, "a refused rebuild writes nothing")

        let second = try serve()
        defer { second.ensureStopped() }
        #expect(second.waitForExit() == 1, "a second server on the same database")
        #expect(lastLine(second.stderr) == "blogd: a server is running on this database; stop it first", "\(second.stderr)")

        #expect(try exchange("login:alice:pw[E];", port: port) == "log:OK[E];", "the first still serves")
        #expect(server.stop() == 0)
        let rebuilt = try rebuild()
        #expect(rebuilt.status == 0 && rebuilt.out.contains("rebuilt the pages of 1 user"), "\(rebuilt.err)")
    }

    @Test func aKilledServerHoldsNothing() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try serve()
        defer { server.ensureStopped() }
        _ = try server.waitForPort()
        #expect(try rebuild().status == 1)
        server.crash()
        let rebuilt = try rebuild()
        #expect(rebuilt.status == 0, "\(rebuilt.err)")
        let again = try serve()
        defer { again.ensureStopped() }
        _ = try again.waitForPort()
        #expect(again.stop() == 0)
    }

    @Test func aServerIsRefusedWhileARebuildRuns() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // The database made first, as any rebuild finds it (a rebuild makes none).
        try makeDatabase(db)
        #expect(try rebuild().status == 0)
        // A rebuild's hold, taken here: a real one is over too soon to
        // start a server during it.
        let rebuilding = try ServerLock.acquire(.rebuild, database: db)
        let refused = try serve()
        defer { refused.ensureStopped() }
        #expect(refused.waitForExit() == 1)
        #expect(lastLine(refused.stderr) == "blogd: a rebuild is running on this database; wait for it to finish", "\(refused.stderr)")
        let otherRebuild = try rebuild()
        #expect(otherRebuild.status == 1)
        #expect(lastLine(otherRebuild.err) == "blogd: a rebuild is running on this database; wait for it to finish", "\(otherRebuild.err)")
        #expect(throws: ServerLock.LockError.held(by: .rebuild)) { try ServerLock.acquire(.server, database: db) }

        rebuilding.release()
        let server = try serve()
        defer { server.ensureStopped() }
        _ = try server.waitForPort()
        #expect(throws: ServerLock.LockError.held(by: .server)) { try ServerLock.acquire(.rebuild, database: db) }
        #expect(server.stop() == 0)
        let held = try ServerLock.acquire(.server, database: db)
        held.release()
    }
}
