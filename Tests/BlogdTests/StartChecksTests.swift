import BlogSockets
import Foundation
import Testing

/// What `blogd` says at start about how it was started: mistyped
/// commands and variables, ports in use (before the page check), paths
/// in a config file, running as root.
@Suite(.serialized)
struct StartChecksTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-start-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var data: [String] {
        ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path]
    }

    @Test func aMistypedCommandIsNamedWithTheNearestOne() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try runBlogd(["adusr", "alice"] + data, environment: environment, input: "pw\n")
        #expect(run.status == 64)
        #expect(run.err == "blogd: unknown command 'adusr' (did you mean 'adduser'?); `blogd --help` lists them\n", "\(run.err)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("blog.sqlite").path))
        let far = try runBlogd(["frobnicate"], environment: environment)
        #expect(far.status == 64 && far.err.contains("unknown command 'frobnicate';") && !far.err.contains("Usage"), "\(far.err)")
        // Commands and options still go through.
        #expect(try runBlogd(["--version"]).out.hasPrefix("blogd "))
        #expect(try runBlogd(["help", "users"]).status == 0)
    }

    @Test func anUnknownVariableIsWarnedAboutOnce() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0"] + data,
                                      environment: environment.merging([
                                          "BLOGD_REGISTRATOIN": "closed", "BLOGD_REQUIRE_POSTGRES": "1",
                                          "BLOGD_SKIP_FEED_TOOLS": "1",
                                      ]) { $1 })
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        let warnings = server.stderr.split(separator: "\n").filter { $0.contains("unknown environment variable") }
        #expect(warnings.count == 1, "\(server.stderr)")
        #expect(warnings.first?.contains("BLOGD_REGISTRATOIN ignored (did you mean BLOGD_REGISTRATION?)") == true)
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];", "the typo changed nothing")
        let root = server.stderr.split(separator: "\n").filter { $0.contains("running as root") }
        #expect(root.count == (geteuid() == 0 ? 1 : 0))
        #expect(server.stop() == 0)
    }

    /// A port in use stops the start before the page check (which reads
    /// every blog) and says which; under systemd the line has the
    /// journal's error priority.
    @Test func aPortInUseIsSaidBeforeThePageCheck() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let taken = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        defer { taken.forEach { $0.socket.close() } }
        let port = try #require(taken.first?.port)
        for flags in [["--port", String(port)], ["--port", "0", "--http", String(port)], ["--port", "0", "--metrics", String(port)]] {
            let run = try runBlogd(["serve", "--host", "127.0.0.1"] + flags + data,
                                   environment: environment.merging(["JOURNAL_STREAM": "8:1234"]) { $1 })
            #expect(run.status == 1, "\(flags)")
            let last = run.err.split(separator: "\n").last.map(String.init) ?? ""
            #expect(last.hasPrefix("<3>blogd: ") && last.contains("127.0.0.1:\(port)")
                    && last.hasSuffix("Address already in use"), "\(flags): \(run.err)")
            #expect(!run.err.contains("pages checked"), "the page check ran first: \(run.err)")
        }
        // Without the journal, no priority.
        let plain = try runBlogd(["serve", "--host", "127.0.0.1", "--port", String(port)] + data, environment: environment)
        let line = plain.err.split(separator: "\n").last.map(String.init) ?? ""
        #expect(line.hasPrefix("blogd: blog port: bind") && line.contains(String(port)), "\(plain.err)")
    }

    /// Relative paths in a config file are read from its folder: an admin
    /// command run anywhere finds the service's database.
    @Test func aConfigFilesPathsAreReadFromItsFolder() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let etc = folder.appendingPathComponent("etc")
        let elsewhere = folder.appendingPathComponent("elsewhere")
        for made in [etc, elsewhere] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        let config = etc.appendingPathComponent("blogd.json")
        try Data(#"{"db": "../state/blog.sqlite", "public": "../state/public"}"#.utf8).write(to: config)
        let server = try BlogdProcess(["serve", "--config", config.path, "--host", "127.0.0.1", "--port", "0"],
                                      environment: environment, cwd: etc)
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("state/public/alice.html").path))

        // From another folder, with the same file: the same blog.
        let added = try runBlogd(["adduser", "bob", "--config", config.path], environment: environment, input: "pw\n",
                                 cwd: elsewhere)
        #expect(added.status == 0, "\(added.err)")
        let users = try runBlogd(["users", "--config", config.path], environment: environment, cwd: elsewhere)
        #expect(users.out.contains("alice") && users.out.contains("bob"), "\(users.out)\(users.err)")
        #expect(!FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("state").path))
        #expect(server.stop() == 0)
    }
}
