import BlogTestSupport
import Foundation
import Testing

/// Webmention sending and Micropub's photo by URL on the real binary: the
/// config keys, the link rule given to the store, the sender started and
/// woken, the fetcher behind Micropub.
@Suite(.serialized)
struct WebmentionSendingEndToEndTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_BASE_URL": "http://blog.test/"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-wm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var data: [String] { ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path] }

    private func serve(_ extra: [String: String]) throws -> (BlogdProcess, Int) {
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0"] + data,
                                      environment: environment.merging(extra) { $1 })
        return (server, try server.waitForHTTPPort())
    }

    private func micropub(_ port: Int, _ token: String, _ fields: [String]) throws -> (status: Int, body: String) {
        let result = try tool("curl", ["-s", "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(token)"]
                                  + fields.flatMap { ["--data-urlencode", $0] } + ["http://127.0.0.1:\(port)/micropub"])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    @Test func aMicropubPostWithALinkAndAPhotoByURL() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        guard let jpeg = try withTemporaryFolder({ (scratch: URL) throws in try Self.jpeg(in: scratch) }) else { return }
        let receiver = try HTTPStubServer { request in
            switch (request.method, request.path) {
            case ("POST", _): .init(status: 202)
            case (_, "/photo.jpg"): .init(status: 200, headers: [("Content-Type", "image/jpeg")], body: jpeg)
            default: .html("<link rel=\"webmention\" href=\"/endpoint\">")
            }
        }
        defer { receiver.stop() }
        try makeDatabase(folder.appendingPathComponent("blog.sqlite").path)
        #expect(try runBlogd(["adduser", "alice"] + data, environment: environment, input: "pw\n").status == 0)
        let token = try runBlogd(["token", "alice", "--scope", "create delete media"] + data, environment: environment)
            .out.trimmingCharacters(in: .whitespacesAndNewlines)

        // Private addresses not allowed (the default): the photo is refused.
        var (server, http) = try serve([:])
        let refused = try micropub(http, token, ["h=entry", "content=x", "photo=\(receiver.url("/photo.jpg"))"])
        #expect(refused.status == 400 && refused.body.contains("may not reach"), "\(refused.body)")
        _ = server.stop()

        (server, http) = try serve(["BLOGD_OUTGOING_ALLOW_PRIVATE": "true"])
        defer { _ = server.stop() }
        let target = receiver.url("/a/post")
        let created = try micropub(http, token, ["h=entry", "content=Replying to \(target)",
                                                 "photo=\(receiver.url("/photo.jpg"))"])
        #expect(created.status == 201, "\(created.body) \(server.stderr)")
        #expect(waitUntil(timeout: 60) { receiver.requests.contains { $0.method == "POST" } })
        let mention = try #require(receiver.requests.first { $0.method == "POST" })
        let id = try #require(try FileManager.default.contentsOfDirectory(
            atPath: folder.appendingPathComponent("public/alice").path).compactMap { name in
            name.hasSuffix(".html") ? Int64(name.dropLast(5)) : nil
        }.first)
        #expect(mention.path == "/endpoint")
        #expect(mention.form["source"] == "http://blog.test/alice/\(id).html" && mention.form["target"] == target)
        let page = try httpRequest(port: http, path: "/alice/\(id).html")
        #expect(page.status == 200 && page.body.contains("photos/") && page.body.contains("href=\"\(target)\""))
    }

    static func jpeg(in folder: URL) throws -> [UInt8]? {
        guard (try? tool("which", ["vips"]).status) == 0 else {
            try #require(ProcessInfo.processInfo.environment["BLOGD_REQUIRE_PHOTO_TOOLS"] != "1", "vips is missing")
            return nil
        }
        let file = folder.appendingPathComponent("photo.jpg").path
        #expect(try tool("vips", ["black", file, "64", "48", "--bands", "3"]).status == 0)
        return Array(try Data(contentsOf: URL(fileURLWithPath: file)))
    }
}
