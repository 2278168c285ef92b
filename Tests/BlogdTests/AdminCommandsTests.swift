import Foundation
import Testing

/// The admin's subcommands, run as processes while `blogd serve` runs on
/// the same database and folder.
@Suite(.serialized)
struct AdminCommandsTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-admin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var data: [String] {
        ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path]
    }

    func file(_ name: String) -> String? {
        try? String(contentsOfFile: folder.appendingPathComponent("public/" + name).path, encoding: .utf8)
    }

    func admin(_ arguments: [String], input: String? = nil) throws -> (status: Int32, out: String, err: String) {
        try runBlogd(arguments + data, environment: environment, input: input)
    }

    @Test func eachCommandWorksWhileTheServerRuns() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0"] + data,
                                      environment: environment.merging(["BLOGD_REGISTRATION": "closed"]) { $1 })
        defer { _ = server.stop() }
        let port = try server.waitForPort()
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:NA[E];", "registration is closed")

        let added = try admin(["adduser", "alice"], input: "pw\n")
        #expect(added.status == 0, "\(added.err)")
        #expect(file("alice.html") != nil)
        #expect(try exchange("login:alice:pw[E];", port: port) == "log:OK[E];")
        #expect(try exchange("newpost:alice:Keep:fine[E];", port: port) == "post:OK[E];")
        #expect(try exchange("newpost:alice:Spam:buy now[E];", port: port) == "post:OK[E];")
        let listing = try exchange("posts:alice[E];", port: port)
        #expect(listing.hasPrefix("posts:OK:2\n"))
        let spamID = try #require(listing.split(separator: "\n").dropFirst().first?.split(separator: "\t").first)

        let deleted = try admin(["delete-post", String(spamID)])
        #expect(deleted.status == 0 && deleted.out.contains("deleted post \(spamID) of alice"), "\(deleted.err)")
        #expect(file("alice/\(spamID).html.gone") != nil && file("alice/\(spamID).html") == nil)
        #expect(file("alice.html")?.contains("Spam") == false)
        #expect(try admin(["delete-post", String(spamID)]).status != 0, "no such post any more")

        #expect(try admin(["suspend", "ALICE"]).status == 0)
        #expect(try exchange("newpost:alice:Again:x[E];", port: port) == "post:NA[E];", "suspended, lease or not")
        #expect(try exchange("login:alice:pw[E];", port: port) == "log:NA[E];")
        #expect(try admin(["unsuspend", "alice"]).status == 0)
        #expect(try exchange("login:alice:pw[E];", port: port) == "log:OK[E];")
        #expect(try exchange("newpost:alice:Back:x[E];", port: port) == "post:OK[E];")

        let gone = try admin(["delete-user", "alice"])
        #expect(gone.status == 0, "\(gone.err)")
        #expect(file("alice.html") == nil && file("alice.atom") == nil && file("alice/") == nil)
        #expect(try exchange("login:alice:pw[E];", port: port) == "log:NA[E];")
        let missing = try admin(["suspend", "nobody"])
        #expect(missing.status != 0 && missing.err.contains("no such user: nobody"))
        #expect(server.stop() == 0)
    }
}
