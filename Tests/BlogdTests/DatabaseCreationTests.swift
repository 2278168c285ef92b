import BlogSQLite
import Foundation
import Testing

/// Only `blogd serve` makes a database, and only on a first run or when
/// told (`--init`): a mistyped `--db` beside a blog's pages is refused by
/// every command, naming the absolute path, and makes no file.
@Suite(.serialized)
struct DatabaseCreationTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-creation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var publicFolder: String { folder.appendingPathComponent("public").path }
    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// A blog with one user and one post, its server stopped.
    func makeBlog() throws {
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--db", path("blog.sqlite"),
                                       "--public", publicFolder], environment: environment)
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("newpost:alice:Kept:the only post[E];", port: port) == "post:OK[E];")
        #expect(server.stop() == 0)
    }

    @Test func aMistypedDatabaseIsRefusedByEveryCommand() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try makeBlog()
        let index = try Data(contentsOf: URL(fileURLWithPath: publicFolder + "/index.html"))
        // Relative, from the folder: the message names the absolute path.
        let typo = ["--db", "blgo.sqlite", "--public", publicFolder]
        let absolute = folder.appendingPathComponent("blgo.sqlite").standardizedFileURL.path

        let serve = try runBlogd(["serve", "--host", "127.0.0.1", "--port", "0"] + typo, environment: environment, cwd: folder)
        #expect(serve.status == 1)
        #expect(serve.err.contains("no database at \(absolute)") && serve.err.contains("--init"), "\(serve.err)")
        #expect(!serve.err.contains("listening on"))

        let commands: [[String]] = [
            ["rebuild"], ["adduser", "bob"], ["delete-post", "1"], ["suspend", "alice"], ["unsuspend", "alice"],
            ["delete-user", "alice"], ["token", "alice"], ["tokens", "alice"], ["revoke-token", "alice", "1"],
        ]
        for command in commands {
            let run = try runBlogd(command + typo, environment: environment, input: "pw\n", cwd: folder)
            #expect(run.status == 1, "\(command)")
            #expect(run.err.contains("no database at \(absolute)"), "\(command): \(run.err)")
        }
        let users = try runBlogd(["users", "--db", "blgo.sqlite"], environment: environment, cwd: folder)
        #expect(users.status == 1 && users.err.contains("no database at \(absolute)"), "\(users.err)")
        #expect(!FileManager.default.fileExists(atPath: absolute), "no command made the mistyped database")
        #expect(try Data(contentsOf: URL(fileURLWithPath: publicFolder + "/index.html")) == index, "the index is untouched")

        // Told, serve starts a new one there.
        let told = try BlogdProcess(["serve", "--init", "--host", "127.0.0.1", "--port", "0"] + typo,
                                    environment: environment, cwd: folder)
        defer { told.ensureStopped() }
        _ = try told.waitForPort()
        #expect(told.stderr.contains("made a new database"))
        #expect(told.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: absolute))
    }

    @Test func aFirstRunMakesTheDatabaseAndThePublicFolder() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // Neither the database's folder nor the public folder is there.
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--db", path("data/blog.sqlite"),
                                       "--public", path("site/public")], environment: environment)
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        #expect(server.stderr.contains("made the public folder"))
        #expect(server.stderr.contains("public=\(path("site/public"))"))
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        #expect(FileManager.default.fileExists(atPath: path("site/public/alice.html")))
        #expect(server.stop() == 0)
    }

    @Test func anAdminCommandWithoutThePublicFolderNamesIt() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try makeBlog()
        let run = try runBlogd(["adduser", "bob", "--db", path("blog.sqlite"), "--public", "pubic"],
                               environment: environment, input: "pw\n", cwd: folder)
        let absolute = folder.appendingPathComponent("pubic").standardizedFileURL.path
        #expect(run.status == 1)
        #expect(run.err.contains("public folder not found: \(absolute)") && run.err.contains("mkdir -p \(absolute)"),
                "\(run.err)")
        #expect(!FileManager.default.fileExists(atPath: absolute))
    }

    /// The database and its companions are the owner's alone, made so
    /// under the usual umask (022); and a clean stop leaves the file whole.
    @Test func theDatabaseIsPrivateAndWholeAfterAStop() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let old = umask(0o022)
        defer { umask(old) }
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--db", path("data/blog.sqlite"),
                                       "--public", publicFolder], environment: environment)
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        for index in 1...40 {
            #expect(try exchange("newpost:alice:Post \(index):\(String(repeating: "text ", count: 200))[E];", port: port)
                    == "post:OK[E];")
        }
        for name in ["blog.sqlite", "blog.sqlite-wal", "blog.sqlite-shm"] {
            #expect(mode(path("data/" + name)) == 0o600, "\(name) is \(String(mode(path("data/" + name)) ?? 0, radix: 8))")
        }
        let backup = try runBlogd(["backup", path("copy.sqlite"), "--db", path("data/blog.sqlite")])
        #expect(backup.status == 0, "\(backup.err)")
        #expect(mode(path("copy.sqlite")) == 0o600)

        #expect(server.stop() == 0)
        let wal = (try? FileManager.default.attributesOfItem(atPath: path("data/blog.sqlite-wal"))[.size] as? Int) ?? 0
        #expect(wal == 0, "the WAL holds \(wal) bytes after a clean stop")
        // The file alone, as a copy of it would be.
        try FileManager.default.createDirectory(atPath: path("alone"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path("data/blog.sqlite"), toPath: path("alone/blog.sqlite"))
        let store = try SQLiteStore(path: path("alone/blog.sqlite"), create: false)
        defer { try? store.close() }
        let user = try #require(try store.user(named: "alice"))
        #expect(try store.posts(ofUserID: user.id).count == 40)
    }

    func mode(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o777)
    }
}
