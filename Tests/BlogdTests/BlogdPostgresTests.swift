import BlogTestSupport
import Foundation
import Testing

/// The built `blogd` binary on PostgreSQL (`--db postgres://...`).
@Suite(.serialized, .enabled(if: PostgresCluster.enabled))
struct BlogdPostgresTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-pg-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var publicFolder: String { folder.appendingPathComponent("public").path }

    /// A fresh database's URL, with a password the (trusting) server never
    /// asks for, to show that it is never logged.
    func database() throws -> String {
        try PostgresCluster.shared().makeDatabase().replacingOccurrences(of: "postgres://blogd@", with: "postgres://blogd:pw-s3cret@")
    }

    @Test func registerLoginPostOverTheBlogPort() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = try database()
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--db", db, "--public", publicFolder],
                                      environment: environment)
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        #expect(try exchange("register:Alice:s3cret[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("register:ALICE:x[E];", port: port) == "reg:NA[E];")
        #expect(try exchange("login:alice:s3cret[E];", port: port) == "log:OK[E];")
        #expect(try exchange("newpost:Alice:First:Hello <world>[E];", port: port) == "post:OK[E];")
        #expect(try exchange("newpost:alice:Second:Again[E];", port: port) == "post:OK[E];")
        let page = try String(contentsOfFile: publicFolder + "/Alice.html", encoding: .utf8)
        let second = try #require(page.range(of: "\">Second</a></h2>"))
        let first = try #require(page.range(of: "\">First</a></h2>"))
        #expect(second.lowerBound < first.lowerBound, "newest first")
        #expect(page.contains("Hello &lt;world&gt;"))
        #expect(server.stop() == 0)
        #expect(server.stderr.contains("postgres://blogd:***@127.0.0.1"), "the db is logged without its password")
        #expect(!server.stderr.contains("pw-s3cret"))

        // The listing, with the URL from BLOGD_DB this time.
        let listing = try runBlogd(["users", "--json"], environment: ["BLOGD_DB": db])
        #expect(listing.status == 0, "\(listing.err)")
        let users = try #require(try JSONSerialization.jsonObject(with: Data(listing.out.utf8)) as? [[String: Any]])
        #expect(users.first?["name"] as? String == "Alice")
        #expect(users.first?["posts"] as? Int == 2)

        // A rebuild from the database writes the same page.
        try FileManager.default.removeItem(atPath: publicFolder + "/Alice.html")
        let rebuild = try runBlogd(["rebuild", "--db", db, "--public", publicFolder], environment: environment)
        #expect(rebuild.status == 0, "\(rebuild.err)")
        #expect(try String(contentsOfFile: publicFolder + "/Alice.html", encoding: .utf8) == page)
    }

    @Test func badDatabaseURLsGiveOneLine() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cluster = try PostgresCluster.shared()
        let cases = [
            "postgres://blogd:pw-s3cret@127.0.0.1:\(cluster.port)/no_such_database?sslmode=disable",
            "postgres://blogd:pw-s3cret@127.0.0.1:notaport/blog",
        ]
        for db in cases {
            let result = try runBlogd(["serve", "--port", "0", "--db", db, "--public", publicFolder], environment: environment)
            #expect(result.status == 1, "\(db)")
            let lines = result.err.split(separator: "\n")
            #expect(lines.count == 1, "\(result.err)")
            #expect(lines.first?.hasPrefix("blogd: ") == true, "\(result.err)")
            #expect(!result.err.contains("pw-s3cret"), "\(result.err)")
        }
    }
}
