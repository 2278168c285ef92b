import BlogTestSupport
import Foundation
import Testing

/// Webmention on the real binary: the endpoint named on the post's page,
/// a reply sent with curl, verified by the server's own background loop
/// against a source on loopback (`outgoing_allow_private` on), listed and
/// approved with `blogd webmentions`, shown on the page, then removed when
/// the source answers 410.
@Suite(.serialized)
struct WebmentionEndToEndTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_OUTGOING_ALLOW_PRIVATE": "true"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-webmention-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var data: [String] { ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path] }

    func post(_ url: String, _ fields: [String]) throws -> Int {
        let result = try tool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}"] + fields.flatMap { ["--data-urlencode", $0] } + [url])
        return Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    func page(_ id: Int64) -> String {
        (try? String(contentsOf: folder.appendingPathComponent("public/alice/\(id).html"), encoding: .utf8)) ?? ""
    }

    @Test func aReplyIsVerifiedApprovedShownAndRemoved() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0"] + data, environment: environment)
        defer { _ = server.stop() }
        let http = try server.waitForHTTPPort()
        let base = "http://127.0.0.1:\(http)"
        #expect(try runBlogd(["adduser", "alice"] + data, environment: environment, input: "pw\n").status == 0)
        let token = try runBlogd(["token", "alice", "--scope", "create"] + data, environment: environment).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let created = try tool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)",
                                        "-d", "h=entry", "-d", "content=Reply to me", "\(base)/micropub"])
        #expect(created.output == "201")
        let id: Int64 = 1
        let target = "\(base)/alice/\(id).html"
        #expect(page(id).contains("<link rel=\"webmention\" href=\"webmention\">"), "the endpoint is named on the page")
        let headers = try tool("curl", ["-s", "-D", "-", "-o", "/dev/null", target]).output
        #expect(headers.lowercased().contains("link: </webmention>; rel=\"webmention\""), "and in its Link header: \(headers)")
        #expect(headers.lowercased().contains("link: </micropub>; rel=\"micropub\""))

        let source = try await LoopbackHTTPServer.start()
        source.set("/reply", .page("""
            <div class="h-entry"><a class="p-author h-card" href="https://bob.example/">Bob</a>
            <a class="u-in-reply-to" href="\(target)">re</a><p class="e-content">Hello from Bob's site</p></div>
            """))
        #expect(try post("\(base)/webmention", ["source=\(source.url("/reply"))", "target=\(target)"]) == 202)
        #expect(try post("\(base)/webmention", ["source=\(source.url("/reply"))", "target=https://elsewhere.example/alice/1.html"]) == 400)

        // The server verifies it on its own, in the background.
        var listed = ""
        #expect(server.waitUntil(timeout: 60) {
            listed = (try? runBlogd(["webmentions", "list", "alice", "--pending"] + data, environment: environment).out) ?? ""
            return listed.contains("\tpending\treply\t")
        }, "\(listed)")
        let mention = try #require(listed.split(separator: "\t").first.flatMap { Int64($0) })
        #expect(!page(id).contains("Hello from Bob"), "not shown before approval")
        let approved = try runBlogd(["webmentions", "approve", String(mention)] + data, environment: environment)
        #expect(approved.status == 0, "\(approved.err)")
        #expect(page(id).contains("Hello from Bob&#39;s site") || page(id).contains("Hello from Bob's site"), "\(page(id))")

        source.set("/reply", .page("gone", status: 410))
        #expect(try post("\(base)/webmention", ["source=\(source.url("/reply"))", "target=\(target)"]) == 202)
        #expect(server.waitUntil(timeout: 60) { !page(id).contains("Hello from Bob") }, "removed once the source is gone")
        #expect(try runBlogd(["webmentions", "list"] + data, environment: environment).out.isEmpty)
        try await source.close()
    }
}
