import FlyingFox
import Foundation
import Testing
@testable import BlogWeb

/// The handler on its own, without sockets. The same paths over the wire,
/// through FlyingFox's decoding, are tested against the real binary in
/// `BlogdTests/HTTPServingTests`.
@Suite
struct PublicFolderHandlerTests {
    let root: URL
    let handler: PublicFolderHandler

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("blogweb-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("public")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in [("alice.html", "<h1>alice</h1>"), ("alice.2.html", "<h1>alice 2</h1>"),
                             ("style.css", "body{}"), ("index.html", "<h1>Blogs</h1>"),
                             (".alice.html.1.tmp", "half"), ("notes.txt", "text")] {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try "secret".write(to: root.appendingPathComponent("blog.sqlite"), atomically: true, encoding: .utf8)
        handler = PublicFolderHandler(folder: folder)
    }

    func get(_ path: String, method: HTTPMethod = .GET) async throws -> HTTPResponse {
        try await handler.handleRequest(HTTPRequest(method: method, version: .http11, path: path, query: [], headers: [:], body: Data()))
    }

    @Test func pagesAndArchivesAreHTML() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        for path in ["/alice.html", "/alice.2.html"] {
            let response = try await get(path)
            #expect(response.statusCode == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
        }
        let body = try await get("/alice.html").bodyData
        #expect(String(decoding: body, as: UTF8.self) == "<h1>alice</h1>")
    }

    @Test func stylesheetIsCSS() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let response = try await get("/style.css")
        #expect(response.statusCode == .ok)
        #expect(response.headers[.contentType] == "text/css; charset=utf-8")
    }

    @Test func rootIsTheIndex() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let body = try await get("/").bodyData
        #expect(String(decoding: body, as: UTF8.self) == "<h1>Blogs</h1>")
    }

    @Test(arguments: ["/../blog.sqlite", "/public/../blog.sqlite", "/..", "/.alice.html.1.tmp", "/sub/alice.html",
                      "/alice.html\0.css", "//etc/passwd", "/etc/passwd", "/notes.txt", "/bob.html", "/alice.HTML.bak"])
    func onlyVisibleHTMLAndCSSOfTheFolder(path: String) async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let response = try await get(path)
        #expect(response.statusCode == .notFound, "\(path)")
        let body = String(decoding: try await response.bodyData, as: UTF8.self)
        #expect(!body.contains("secret") && !body.contains("half"))
    }

    @Test func readOnly() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        for method in [HTTPMethod.POST, .PUT, .DELETE] {
            let response = try await get("/alice.html", method: method)
            #expect(response.statusCode == .methodNotAllowed)
        }
        let head = try await get("/alice.html", method: .HEAD)
        #expect(head.statusCode == .ok)
        #expect(head.headers[.contentLength] == String("<h1>alice</h1>".utf8.count), "the length GET would send")
        let body = try await head.bodyData
        #expect(body.isEmpty)
    }

    @Test func fileNames() {
        #expect(PublicFolderHandler.fileName(for: "/") == "index.html")
        #expect(PublicFolderHandler.fileName(for: "/alice.html") == "alice.html")
        #expect(PublicFolderHandler.fileName(for: "/a-b_c.3.html") == "a-b_c.3.html")
        for bad in ["/..", "/../x", "/.x", "/a/b", "/a..b", "/%2e", "/a b", "/a\\b"] {
            #expect(PublicFolderHandler.fileName(for: bad) == nil, "\(bad)")
        }
    }
}
