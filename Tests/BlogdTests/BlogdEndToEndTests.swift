import Foundation
import Testing

/// The built `blogd` binary, driven as a user would.
@Suite(.serialized)
struct BlogdEndToEndTests {
    let folder: URL
    /// Cheap scrypt, so the suite stays quick; the cost is a config value.
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var db: String { folder.appendingPathComponent("data/blog.sqlite").path }
    var publicFolder: String { folder.appendingPathComponent("public").path }

    func serve(_ extra: [String] = [], environment extraEnvironment: [String: String] = [:]) throws -> BlogdProcess {
        try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--db", db, "--public", publicFolder] + extra,
                         environment: environment.merging(extraEnvironment) { $1 })
    }

    @Test func servesRestartsAndKeepsData() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try serve()
        let port = try first.waitForPort()
        #expect(try exchange("register:Alice:s3cret:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("login:Alice:s3cret:pw[E];", port: port) == "log:OK[E];")
        #expect(try exchange("newpost:Alice:First:Hello <world>[E];", port: port) == "post:OK[E];")
        #expect(first.stop(signal: SIGTERM) == 0)
        #expect(first.stderr.contains("stopped"))

        let second = try serve()
        let port2 = try second.waitForPort()
        #expect(try exchange("login:alice:s3cret:pw[E];", port: port2) == "log:OK[E];")
        #expect(try exchange("register:ALICE:x[E];", port: port2) == "reg:NA[E];")
        #expect(try exchange("newpost:Alice:Second:Again\nand again[E];", port: port2) == "post:OK[E];")

        let page = try String(contentsOfFile: publicFolder + "/Alice.html", encoding: .utf8)
        let second_ = try #require(page.range(of: "\">Second</a></h2>"))
        let first_ = try #require(page.range(of: "\">First</a></h2>"))
        #expect(second_.lowerBound < first_.lowerBound, "newest first")
        #expect(page.contains("Hello &lt;world&gt;"))
        #expect(page.contains("Again<br>and again"))

        let table = try runBlogd(["users", "--db", db])
        #expect(table.status == 0)
        #expect(table.out.contains("Alice"))
        #expect(table.out.split(separator: "\n").contains { $0.hasPrefix("Alice") && $0.contains(" 2 ") })
        let json = try runBlogd(["users", "--db", db, "--json"])
        let users = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
        #expect(users.count == 1)
        #expect(users.first?["name"] as? String == "Alice")
        #expect(users.first?["posts"] as? Int == 2)

        #expect(second.stop(signal: SIGINT) == 0)
        // Secrets and post text never reach the log.
        for log in [first.stderr, second.stderr] {
            #expect(!log.contains("s3cret"))
            #expect(!log.contains("Hello"))
            #expect(log.contains("command=register") || log.contains("command=login"))
        }
    }

    @Test func keepAliveFromTheEnvironment() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try serve(environment: ["BLOGD_KEEP_ALIVE": "true"])
        let port = try server.waitForPort()
        let connection = try WireConnection(port: port)
        try connection.send("register:bob:pw[E];")
        #expect(try connection.readReply() == "reg:OK[E];")
        try connection.send("newpost:bob:T:C[E];\n")
        #expect(try connection.readReply() == "post:OK[E];")
        try connection.send("nonsense[E];")
        #expect(try connection.readReply() == "err:CMD[E];")
        connection.close()
        #expect(server.stop() == 0)
    }

    @Test func openPostingWarnsAtStartAndLetsAnyonePost() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // Leases are kept in the database: a zero lease leaves dana none.
        let closed = try serve(environment: ["BLOGD_LOGIN_LEASE": "0"])
        let port = try closed.waitForPort()
        #expect(try exchange("register:dana:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("register:erin:pw[E];", port: port) == "reg:OK[E];")
        #expect(!closed.stderr.contains("open posting"))
        #expect(closed.stop() == 0)

        // By default a post needs a login.
        let secure = try serve()
        let securePort = try secure.waitForPort()
        #expect(try exchange("newpost:dana:T:forged[E];", port: securePort) == "post:NA[E];")
        #expect(try exchange("login:erin:pw[E];", port: securePort) == "log:OK[E];")
        #expect(secure.stop() == 0)

        // A lease survives a restart: it is in the database.
        let again = try serve()
        let againPort = try again.waitForPort()
        #expect(try exchange("newpost:erin:T:after a restart[E];", port: againPort) == "post:OK[E];")
        #expect(try exchange("newpost:dana:T:forged[E];", port: againPort) == "post:NA[E];")
        #expect(again.stop() == 0)

        let open = try serve(environment: ["BLOGD_OPEN_POSTING": "true"])
        let openPort = try open.waitForPort()
        #expect(open.stderr.contains("warning"))
        #expect(open.stderr.contains("open posting is on"))
        #expect(try exchange("newpost:dana:T:anyone[E];", port: openPort) == "post:OK[E];")
        #expect(open.stop() == 0)
    }

    /// The first SIGTERM stops gracefully (here it waits for a silent
    /// keep-alive client to leave); a second one ends the process at once.
    @Test func secondSignalExitsAtOnce() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try serve(environment: ["BLOGD_KEEP_ALIVE": "true"])
        let port = try server.waitForPort()
        let silent = try WireConnection(port: port)
        defer { silent.close() }
        try silent.send("register:erin:pw[E];")
        #expect(try silent.readReply() == "reg:OK[E];")
        kill(server.process.processIdentifier, SIGTERM)
        usleep(300_000)
        #expect(server.process.isRunning, "the graceful stop waits for the open connection")
        // 128 + SIGTERM is the signal handler's own exit: a graceful stop
        // that merely finished would exit 0.
        let status = server.stop(signal: SIGTERM)
        #expect(status == 128 + SIGTERM, "the second signal did not end it at once")
    }

    @Test func badSetupGivesOneLineAndExitOne() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let misspelt = folder.appendingPathComponent("misspelt.json")
        try Data(#"{"port": 0, "hots": "127.0.0.1"}"#.utf8).write(to: misspelt)
        let broken = folder.appendingPathComponent("broken.json")
        try Data(#"{"port": 0,, }"#.utf8).write(to: broken)
        let cases: [[String]] = [
            ["serve", "--config", folder.appendingPathComponent("nope.json").path],
            ["serve", "--config", misspelt.path],
            ["serve", "--config", broken.path],
            ["serve", "--port", "0", "--db", "/proc/no/such/folder/blog.sqlite", "--public", publicFolder],
            // A missing public folder is made (DatabaseCreationTests); one that cannot be is an error.
            ["serve", "--port", "0", "--db", db, "--public", "/proc/no/such/public"],
            ["users", "--db", folder.appendingPathComponent("none.sqlite").path],
            ["serve", "--port", "99999", "--db", db, "--public", publicFolder],
        ]
        for arguments in cases {
            let result = try runBlogd(arguments, environment: environment)
            #expect(result.status == 1, "\(arguments)")
            let lines = result.err.split(separator: "\n")
            #expect(lines.count == 1, "\(arguments): \(result.err)")
            #expect(lines.first?.hasPrefix("blogd: ") == true, "\(arguments): \(result.err)")
        }
    }

    @Test func misspeltKeyIsNamedWithTheNearestOne() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let misspelt = folder.appendingPathComponent("misspelt.json")
        try Data(#"{"hots": "127.0.0.1"}"#.utf8).write(to: misspelt)
        let result = try runBlogd(["serve", "--config", misspelt.path])
        #expect(result.status == 1)
        #expect(result.err == "blogd: unknown config key 'hots' in \(misspelt.path) (did you mean 'host'?)\n")
    }

    @Test func versionAndHelpWithDefaults() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let version = try runBlogd(["--version"])
        #expect(version.status == 0 && version.out.hasPrefix("blogd "))
        let help = try runBlogd(["serve", "--help"])
        #expect(help.status == 0)
        for text in ["--http <port>", "port = 51515", "env BLOGD_PORT", "registration = open", "env BLOGD_SCRYPT_LOG_N"] {
            #expect(help.out.contains(text), "\(text)")
        }
    }

    /// Under systemd (`JOURNAL_STREAM` set) each line carries its syslog
    /// priority for the journal and no timestamp of its own.
    @Test func journalLinesCarryTheirPriority() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try serve(environment: ["JOURNAL_STREAM": "8:12345"])
        _ = try server.waitForPort()
        #expect(try exchange("nosuchcommand:x[E];", port: try server.waitForPort()) == "err:CMD[E];")
        #expect(server.stop() == 0)
        let lines = server.stderr.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("<6>blogd: listening on ") }, "\(server.stderr)")
        #expect(lines.allSatisfy { $0.range(of: #"^<[2-7]>[a-z.]+: "#, options: .regularExpression) != nil },
                "\(server.stderr)")
    }

    @Test func portInUseIsOneClearError() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try serve()
        let port = try first.waitForPort()
        // Another database: on the same one the server lock refuses first.
        let other = folder.appendingPathComponent("data/other.sqlite").path
        let result = try runBlogd(["serve", "--host", "127.0.0.1", "--port", "\(port)", "--db", other, "--public", publicFolder],
                                  environment: environment)
        #expect(result.status == 1)
        #expect(result.err.contains("bind"))
        #expect(result.err.contains("blogd: "))
        #expect(first.stop() == 0)
    }
}
