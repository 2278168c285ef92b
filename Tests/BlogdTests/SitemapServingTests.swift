import Foundation
import Testing
import BlogTestSupport

/// `blogd serve --http PORT` serves robots.txt and sitemap.xml, written at
/// the start and kept up to date in the background; a post's page names
/// its canonical URL under `base_url`.
@Suite(.serialized)
struct SitemapServingTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_BASE_URL": "https://blog.example.org/"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-sitemap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    /// Starts blogd with HTTP on; returns the process, protocol port, HTTP port.
    func start() throws -> (BlogdProcess, Int, Int) {
        let server = try BlogdProcess(
            ["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0",
             "--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path],
            environment: environment)
        let port = try server.waitForPort()
        return (server, port, try server.waitForHTTPPort())
    }

    @Test func robotsAndSitemapAreServed() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let id: Substring
        do {
            let (server, port, http) = try start()
            defer { _ = server.stop() }
            // Written by the start's page check, before the first request.
            let robots = try httpRequest(port: http, path: "/robots.txt")
            #expect(robots.status == 200 && robots.headers["content-type"] == "text/plain; charset=utf-8")
            #expect(robots.body.contains("Disallow: /app/\n")
                    && robots.body.contains("Sitemap: https://blog.example.org/sitemap.xml\n"))
            let empty = try httpRequest(port: http, path: "/sitemap.xml")
            #expect(empty.status == 200 && empty.headers["content-type"] == "application/xml; charset=utf-8")
            #expect(empty.body.contains("<urlset") && !empty.body.contains("<url>"), "no blog yet")

            #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
            #expect(try exchange("newpost:alice:Hello:First[E];", port: port) == "post:OK[E];")
            let listing = try exchange("posts:alice[E];", port: port)
            id = try #require(listing.split(separator: "\n").dropFirst().first?.split(separator: "\t").first)
            let page = try httpRequest(port: http, path: "/alice/\(id).html")
            #expect(page.body.contains("<link rel=\"canonical\" href=\"https://blog.example.org/alice/\(id).html\">"))
        }
        // The sitemap follows posts in the background, at most once a
        // minute; a start writes it from the database whatever came before.
        let (server, _, http) = try start()
        defer { _ = server.stop() }
        let sitemap = try httpRequest(port: http, path: "/sitemap.xml")
        #expect(sitemap.body.contains("<loc>https://blog.example.org/alice.html</loc>"))
        #expect(sitemap.body.contains("<loc>https://blog.example.org/alice/\(id).html</loc>"))
        #expect(try httpRequest(port: http, path: "/sitemap-1.xml").status == 404, "one file: no parts")
    }
}
