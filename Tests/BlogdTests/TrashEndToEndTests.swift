import BlogTestSupport
import Foundation
import Testing

/// The trash on the real binary: Micropub delete gives 410 at once and
/// undelete brings the page back at its URL (the wiring from the page
/// server to the service); `blogd rebuild` and the start-up check keep a
/// trashed post's page gone; `blogd delete-post` purges it from the trash.
@Suite(.serialized)
struct TrashEndToEndTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-trash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var data: [String] { ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path] }

    private func serve() throws -> (BlogdProcess, Int) {
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0"] + data, environment: environment)
        return (server, try server.waitForHTTPPort())
    }

    private func micropub(_ port: Int, _ token: String, _ fields: [String]) throws -> Int {
        let result = try tool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)"]
                                  + fields.flatMap { ["-d", $0] } + ["http://127.0.0.1:\(port)/micropub"])
        return Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    @Test func deleteUndeleteRebuildAndPurge() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // Admin commands make no database: `serve` does.
        try makeDatabase(folder.appendingPathComponent("blog.sqlite").path)
        #expect(try runBlogd(["adduser", "alice"] + data, environment: environment, input: "pw\n").status == 0)
        let token = try runBlogd(["token", "alice", "--scope", "create delete"] + data, environment: environment)
            .out.trimmingCharacters(in: .whitespacesAndNewlines)
        // Whichever server runs is stopped, even when a step throws.
        var server: BlogdProcess?
        defer { _ = server?.stop() }
        var http: Int
        (server, http) = try serve()
        #expect(try micropub(http, token, ["h=entry", "content=Kept for a while"]) == 201)
        let page = folder.appendingPathComponent("public/alice")
        let id = try #require(try FileManager.default.contentsOfDirectory(atPath: page.path).compactMap { name in
            name.hasSuffix(".html") ? Int64(name.dropLast(5)) : nil
        }.first)
        let url = "http://blog.example/alice/\(id).html"
        #expect(try httpRequest(port: http, path: "/alice/\(id).html").status == 200)

        #expect(try micropub(http, token, ["action=delete", "url=\(url)"]) == 204)
        #expect(try httpRequest(port: http, path: "/alice/\(id).html").status == 410)
        #expect(try micropub(http, token, ["action=undelete", "url=\(url)"]) == 204)
        let back = try httpRequest(port: http, path: "/alice/\(id).html")
        #expect(back.status == 200 && back.body.contains("Kept for a while"))

        #expect(try micropub(http, token, ["action=delete", "url=\(url)"]) == 204)
        _ = server?.stop()
        server = nil
        #expect(try runBlogd(["rebuild"] + data, environment: environment).status == 0)
        (server, http) = try serve()
        #expect(try httpRequest(port: http, path: "/alice/\(id).html").status == 410, "the start-up check keeps it gone")
        _ = server?.stop()
        server = nil

        let purged = try runBlogd(["delete-post", "\(id)"] + data, environment: environment)
        #expect(purged.status == 0, "\(purged.err)")
        (server, http) = try serve()
        #expect(try micropub(http, token, ["action=undelete", "url=\(url)"]) == 400, "purged: nothing to restore")
        #expect(try httpRequest(port: http, path: "/alice/\(id).html").status == 410)
    }
}
