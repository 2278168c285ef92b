import BlogTestSupport
import Foundation
import Testing

/// `blogd blog show` and `blogd blog set`, run as processes while `blogd
/// serve` runs on the same database: the change is on the blog's pages when
/// the command returns, and the server's next post renders with it.
@Suite(.serialized)
struct BlogCommandsTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-blog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var data: [String] {
        ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path]
    }

    func admin(_ arguments: [String], input: String? = nil) throws -> (status: Int32, out: String, err: String) {
        try runBlogd(arguments + data, environment: environment, input: input)
    }

    func page(_ name: String) -> String? {
        try? String(contentsOf: folder.appendingPathComponent("public/\(name)"), encoding: .utf8)
    }

    @Test func setAndShowWhileTheServerRuns() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0"] + data, environment: environment)
        defer { _ = server.stop() }
        let port = try server.waitForPort()
        #expect(try admin(["adduser", "alice"], input: "pw\n").status == 0)
        #expect(try exchange("login:alice:pw[E];", port: port) == "log:OK[E];")
        #expect(try exchange("newpost:alice:First:Hello[E];", port: port) == "post:OK[E];")

        let shown = try admin(["blog", "show", "alice"])
        #expect(shown.status == 0, "\(shown.err)")
        #expect(shown.out == "title: \ndescription: \nauthor-name: \nauthor-photo: \n")

        let set = try admin(["blog", "set", "ALICE", "--title", "Notes & <more>", "--description", "Walks",
                             "--author-name", "Alice A."])
        #expect(set.status == 0, "\(set.err)")
        #expect(set.out.contains("changed the settings of ALICE's blog"))
        let main = try #require(page("alice.html"))
        #expect(main.contains("<title>Notes &amp; &lt;more&gt;</title>"), "written when the command returns")
        #expect(main.contains("<p class=\"blog-description p-summary\">Walks</p>"))
        #expect(try #require(page("alice/1.html")).contains("<title>First – Notes &amp; &lt;more&gt;</title>"))

        // The server reads the settings with each write: its next post shows them.
        #expect(try exchange("newpost:alice:Second:Again[E];", port: port) == "post:OK[E];")
        #expect(try #require(page("alice/2.html")).contains("<title>Second – Notes &amp; &lt;more&gt;</title>"))
        #expect(try #require(page("alice.html")).contains("<title>Notes &amp; &lt;more&gt;</title>"))

        // Options not given stay; an empty one clears.
        #expect(try admin(["blog", "set", "alice", "--title", ""]).status == 0)
        #expect(try admin(["blog", "show", "alice"]).out
                == "title: \ndescription: Walks\nauthor-name: Alice A.\nauthor-photo: \n")
        #expect(try #require(page("alice.html")).contains("<title>alice – blog</title>"))

        // Refusals: a clear line, exit 1, nothing changed.
        let before = page("alice.html")
        let photo = try admin(["blog", "set", "alice", "--author-photo", "https://evil.example/me.jpg"])
        #expect(photo.status == 1 && photo.err.contains("author photo must be a path"), "\(photo.err)")
        let long = try admin(["blog", "set", "alice", "--description", String(repeating: "d", count: 301)])
        #expect(long.status == 1 && long.err.contains("description is longer than 300 characters"), "\(long.err)")
        let nobody = try admin(["blog", "set", "nobody", "--title", "x"])
        #expect(nobody.status == 1 && nobody.err.contains("no such user: nobody"), "\(nobody.err)")
        let nothing = try admin(["blog", "set", "alice"])
        #expect(nothing.status != 0 && nothing.err.contains("give at least one"), "\(nothing.err)")
        #expect(page("alice.html") == before)
        #expect(try admin(["blog", "show", "alice"]).out
                == "title: \ndescription: Walks\nauthor-name: Alice A.\nauthor-photo: \n")
    }
}
