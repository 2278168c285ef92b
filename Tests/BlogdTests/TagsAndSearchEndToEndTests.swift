import BlogTestSupport
import Foundation
import Testing

/// Tags and search on the real binary's page server: a post made through
/// Micropub with a hashtag and a category is on both tag pages and their
/// feeds, found by a word of its text from the form's address and as
/// JSON, and every page carries the search form; the static files are
/// served beside them.
@Suite(.serialized)
struct TagsAndSearchEndToEndTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-tags-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var data: [String] { ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path] }

    @Test func tagPagesAndSearchAreServed() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        if curlIsMissing() { return }
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0"] + data, environment: environment)
        defer { _ = server.stop() }
        let http = try server.waitForHTTPPort()
        #expect(try runBlogd(["adduser", "alice"] + data, environment: environment, input: "pw\n").status == 0)
        let token = try runBlogd(["token", "alice", "--scope", "create"] + data, environment: environment).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let created = try tool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)",
                                        "-d", "h=entry", "-d", "content=A walrus about #Swift", "-d", "category=zoo",
                                        "http://127.0.0.1:\(http)/micropub"])
        #expect(created.output == "201")

        let blog = try httpRequest(port: http, path: "/alice.html")
        #expect(blog.status == 200 && blog.body.contains("href=\"tags/swift\">#Swift</a>"))
        #expect(blog.body.contains("<form class=\"search\" action=\"search\""))
        for path in ["/tags/swift", "/tags/zoo?blog=alice"] {
            let page = try httpRequest(port: http, path: path)
            #expect(page.status == 200 && page.body.contains("A walrus about"), "\(path)")
        }
        let feed = try httpRequest(port: http, path: "/tags/zoo.atom")
        #expect(feed.status == 200 && feed.body.contains("<category term=\"zoo\"/>"))
        let results = try httpRequest(port: http, path: "/search?q=walrus&blog=alice")
        #expect(results.status == 200 && results.body.contains("A walrus about"))
        let json = try httpRequest(port: http, path: "/search.json?q=walrus")
        #expect(json.status == 200 && json.body.contains("\"author\":\"alice\""))
        #expect(try httpRequest(port: http, path: "/tags/17.html").status == 404, "not a tag: the public folder's, and none there")
    }
}
