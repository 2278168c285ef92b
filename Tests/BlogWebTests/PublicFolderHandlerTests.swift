import CompressNIO
import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import BlogWeb

/// The handler on its own, without sockets. The same paths over the wire
/// are in `WebServerTests` and, on the real binary, `BlogdTests/HTTPServingTests`.
@Suite
struct PublicFolderHandlerTests {
    let folder: TempFolder
    let handler: PublicFolderHandler

    init() throws {
        folder = try TempFolder()
        handler = PublicFolderHandler(folder: folder.public)
    }

    @Test func pagesAndArchivesAreHTML() async throws {
        for path in ["/alice.html", "/alice.2.html"] {
            let reply = await handler.reply(method: .get, path: path)
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType] == "text/html; charset=utf-8")
            #expect(reply.headers[.cacheControl] == "no-cache")
            #expect(reply.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
        }
        let reply = await handler.reply(method: .get, path: "/alice.html")
        #expect(String(buffer: reply.body) == "<h1>alice</h1>")
        #expect(reply.headers[.contentLength] == "14")
    }

    @Test func stylesheetIsCSS() async {
        let reply = await handler.reply(method: .get, path: "/style.css")
        #expect(reply.status == .ok)
        #expect(reply.headers[.contentType] == "text/css; charset=utf-8")
    }

    @Test func rootIsTheIndex() async {
        #expect(String(buffer: await handler.reply(method: .get, path: "/").body) == "<h1>Blogs</h1>")
    }

    @Test(arguments: ["/../blog.sqlite", "/public/../blog.sqlite", "/..", "/.alice.html.1.tmp", "/sub/alice.html",
                      "/alice.html\0.css", "//etc/passwd", "/etc/passwd", "/notes.txt", "/bob.html", "/alice.HTML.bak",
                      "/%2e%2e/blog.sqlite", "/..%2fblog.sqlite", "/alice%2ehtml", "/folder.html"])
    func onlyVisibleHTMLAndCSSOfTheFolder(path: String) async {
        let reply = await handler.reply(method: .get, path: path)
        #expect(reply.status == .notFound, "\(path)")
        let body = String(buffer: reply.body)
        #expect(!body.contains("secret") && !body.contains("half"))
    }

    @Test func readOnly() async {
        for method in [HTTPRequest.Method.post, .put, .delete, .patch, .options] {
            let reply = await handler.reply(method: method, path: "/alice.html")
            #expect(reply.status == .methodNotAllowed)
            #expect(reply.headers[.allow] == "GET, HEAD")
        }
    }

    @Test func headHasTheLengthOfGETAndNoBody() async {
        let head = await handler.reply(method: .head, path: "/alice.html")
        #expect(head.status == .ok)
        #expect(head.headers[.contentLength] == String("<h1>alice</h1>".utf8.count), "the length GET would send")
        #expect(head.body.readableBytes == 0)
    }

    @Test func fileNames() {
        #expect(PublicFolderHandler.fileName(for: "/") == "index.html")
        #expect(PublicFolderHandler.fileName(for: "") == "index.html")
        #expect(PublicFolderHandler.fileName(for: "/alice.html") == "alice.html")
        #expect(PublicFolderHandler.fileName(for: "/a-b_c.3.html") == "a-b_c.3.html")
        #expect(PublicFolderHandler.fileName(for: "/alice/17.html") == "alice/17.html")
        #expect(PublicFolderHandler.fileName(for: "/a/b/c.atom") == "a/b/c.atom")
        for bad in ["/..", "/../x", "/.x", "/a..b", "/%2e", "/a b", "/a\\b", "/a%2fb", "//x", "/a//b", "/a/", "/a/.b",
                    "/.a/b", "/a/../b", "/a/./b", "/a/..", "/a/b\0"] {
            #expect(PublicFolderHandler.fileName(for: bad) == nil, "\(bad)")
        }
    }

    @Test func fileExtensions() {
        #expect(PublicFolderHandler.fileExtension(of: "a.html") == "html")
        #expect(PublicFolderHandler.fileExtension(of: "alice/17.HTML") == "html")
        #expect(PublicFolderHandler.fileExtension(of: "alice.2.html") == "html")
        #expect(PublicFolderHandler.fileExtension(of: "a.b/c") == "")
        #expect(PublicFolderHandler.fileExtension(of: "plain") == "")
        #expect(PublicFolderHandler.fileExtension(of: "a.") == "")
    }

    @Test func routesWithoutTouchingFiles() {
        #expect(PublicFolderHandler.route(method: .get, path: "/x.html") == .file(name: "x.html", contentType: "text/html; charset=utf-8", withBody: true))
        #expect(PublicFolderHandler.route(method: .head, path: "/style.css") == .file(name: "style.css", contentType: "text/css; charset=utf-8", withBody: false))
        #expect(PublicFolderHandler.route(method: .get, path: "/x.txt") == .notFound)
        #expect(PublicFolderHandler.route(method: .put, path: "/x.html") == .methodNotAllowed)
        #expect(PublicFolderHandler.route(method: .delete, path: "/../x") == .methodNotAllowed)
    }

    @Test func listenHosts() {
        #expect(ListenHost.bindHosts(for: "*") == ["::", "0.0.0.0"])
        #expect(ListenHost.bindHosts(for: "localhost") == ["127.0.0.1"])
        #expect(ListenHost.bindHosts(for: "10.1.2.3") == ["10.1.2.3"])
        #expect(ListenHost.bindHosts(for: "::1") == ["::1"])
        for bad in ["example.com", "", "[::1]", "1.2.3", "300.1.1.1", "*:80"] {
            #expect(ListenHost.bindHosts(for: bad) == nil, "\(bad)")
        }
    }
    @Test func healthAnswersWhatTheCheckSays() async throws {
        let healthy = PublicFolderHandler(folder: folder.public, health: { true })
        let ok = await healthy.reply(method: .get, path: "/healthz")
        #expect(ok.status == .ok)
        #expect(String(buffer: ok.body) == "ok\n")
        #expect(ok.headers[.cacheControl] == "no-store")
        let head = await healthy.reply(method: .head, path: "/healthz")
        #expect(head.status == .ok && head.body.readableBytes == 0)

        let sick = PublicFolderHandler(folder: folder.public, health: { false })
        #expect(await sick.reply(method: .get, path: "/healthz").status == .serviceUnavailable)
        #expect(await sick.reply(method: .post, path: "/healthz").status == .methodNotAllowed)
    }

    @Test func noHealthEndpointWithoutACheck() async {
        #expect(await handler.reply(method: .get, path: "/healthz").status == .notFound)
    }

    /// Every page has an ETag and a Last-Modified; a GET naming the version
    /// the client holds is a 304 without a body, and a new version of the
    /// page is a 200 again.
    @Test func conditionalGetsAnswer304ForTheCurrentVersion() async throws {
        let first = await handler.reply(method: .get, path: "/alice.html")
        let etag = try #require(first.headers[.eTag])
        let modified = try #require(first.headers[.lastModified])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        #expect(HTTPDate.parse(modified) != nil)

        func status(_ fields: HTTPFields) async -> HTTPResponse.Status {
            await handler.reply(method: .get, path: "/alice.html", fields: fields).status
        }
        let notModified = await handler.reply(method: .get, path: "/alice.html", fields: [.ifNoneMatch: etag])
        #expect(notModified.status == .notModified)
        #expect(notModified.body.readableBytes == 0)
        #expect(notModified.headers[.eTag] == etag)
        #expect(await status([.ifNoneMatch: "W/\(etag)"]) == .notModified, "weak comparison")
        #expect(await status([.ifNoneMatch: "\"other\", \(etag)"]) == .notModified, "one of a list")
        #expect(await status([.ifNoneMatch: "*"]) == .notModified)
        #expect(await status([.ifNoneMatch: "\"other\""]) == .ok)
        #expect(await status([.ifModifiedSince: modified]) == .notModified)
        #expect(await status([.ifModifiedSince: "Thu, 01 Jan 1970 00:00:00 GMT"]) == .ok)
        #expect(await status([.ifModifiedSince: "yesterday"]) == .ok, "a date it cannot read asks for the page")
        #expect(await status([.ifNoneMatch: "\"other\"", .ifModifiedSince: modified]) == .ok, "If-None-Match wins")

        // A page is replaced by renaming a new file over it, as blogd writes.
        let page = folder.public.appendingPathComponent("alice.html")
        let next = folder.public.appendingPathComponent(".alice.html.tmp")
        try Data("<h1>alice, again</h1>".utf8).write(to: next)
        _ = rename(next.path, page.path)
        let fresh = await handler.reply(method: .get, path: "/alice.html", fields: [.ifNoneMatch: etag])
        #expect(fresh.status == .ok)
        #expect(String(buffer: fresh.body) == "<h1>alice, again</h1>")
        #expect(fresh.headers[.eTag] != etag)
    }

    /// A client that asks for gzip gets the page gzipped (with a weak tag:
    /// another representation, and a 304 still works with it); one that
    /// does not, or refuses it (q=0), or asks for a tiny file, gets bytes
    /// as they are. Every page says it varies by Accept-Encoding.
    @Test func gzipWhenAsked() async throws {
        let text = (0..<200).map { "<article><h2>Post \($0)</h2><p>Some text of the post.</p></article>\n" }.joined()
        try Data(text.utf8).write(to: folder.public.appendingPathComponent("bob.html"))
        let packed = await handler.reply(method: .get, path: "/bob.html", fields: [.acceptEncoding: "br, gzip, deflate"])
        #expect(packed.headers[.contentEncoding] == "gzip")
        #expect(packed.headers[.vary] == "Accept-Encoding")
        #expect(packed.headers[.contentLength] == String(packed.body.readableBytes))
        #expect(packed.body.readableBytes < text.utf8.count / 4)
        var body = packed.body
        #expect(String(buffer: try body.decompress(with: .gzip())) == text)
        let etag = try #require(packed.headers[.eTag])
        #expect(etag.hasPrefix("W/\""))
        let cached = await handler.reply(method: .get, path: "/bob.html", fields: [.acceptEncoding: "gzip", .ifNoneMatch: etag])
        #expect(cached.status == .notModified)

        let head = await handler.reply(method: .head, path: "/bob.html", fields: [.acceptEncoding: "gzip"])
        #expect(head.headers[.contentLength] == packed.headers[.contentLength] && head.body.readableBytes == 0)
        for accept in [nil, "identity", "gzip;q=0", "br", "*;q=0"] as [String?] {
            var fields: HTTPFields = [:]
            fields[.acceptEncoding] = accept
            let plain = await handler.reply(method: .get, path: "/bob.html", fields: fields)
            #expect(plain.headers[.contentEncoding] == nil, "\(accept ?? "none")")
            #expect(String(buffer: plain.body) == text)
            #expect(plain.headers[.eTag]?.hasPrefix("W/") == false)
            #expect(plain.headers[.vary] == "Accept-Encoding")
        }
        #expect(await handler.reply(method: .get, path: "/alice.html", fields: [.acceptEncoding: "gzip"]).headers[.contentEncoding] == nil,
                "14 bytes go as they are")
    }

    /// A post's photo is a JPEG that readers may keep for good (its name
    /// never gets other bytes), and is never gzipped: it would not shrink.
    @Test func photosAreLongLivedJPEGs() async throws {
        let name = "photos/" + String(repeating: "ab", count: 16)
        let jpeg = [UInt8]([0xFF, 0xD8]) + (0..<4_000).map { UInt8(truncatingIfNeeded: $0 * 7) } + [0xFF, 0xD9]
        try FileManager.default.createDirectory(at: folder.public.appendingPathComponent("photos"), withIntermediateDirectories: true)
        for file in [name + ".jpg", name + ".t.jpg"] {
            try Data(jpeg).write(to: folder.public.appendingPathComponent(file))
            let reply = await handler.reply(method: .get, path: "/" + file, fields: [.acceptEncoding: "gzip"])
            #expect(reply.status == .ok, "\(file)")
            #expect(reply.headers[.contentType] == "image/jpeg")
            #expect(reply.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(reply.headers[.contentEncoding] == nil)
            #expect(Array(buffer: reply.body) == jpeg)
            let etag = try #require(reply.headers[.eTag])
            #expect(!etag.hasPrefix("W/"))
            let cached = await handler.reply(method: .get, path: "/" + file, fields: [.acceptEncoding: "gzip", .ifNoneMatch: etag])
            #expect(cached.status == .notModified)
            #expect(cached.headers[.eTag] == etag)
        }
        #expect(PublicFolderHandler.route(method: .get, path: "/photos/x.JPG")
                == .file(name: "photos/x.JPG", contentType: "image/jpeg", withBody: true))
    }

    /// Pages in per-user folders are served like the rest.
    @Test func pagesInSubfolders() async throws {
        try folder.write("alice/16.html", "<p>16</p>")
        let reply = await handler.reply(method: .get, path: "/alice/16.html")
        #expect(reply.status == .ok)
        #expect(String(buffer: reply.body) == "<p>16</p>")
        #expect(await handler.reply(method: .get, path: "/alice/").status == .notFound)
        #expect(await handler.reply(method: .get, path: "/alice").status == .notFound)
    }

    /// A deleted post: its page is missing and a tombstone `NAME.gone` lies
    /// beside it: 410 with a short page, for GET and HEAD. The tombstone
    /// itself is never served, and a page with no tombstone is a 404.
    @Test func deletedPostsAre410() async throws {
        try folder.write("alice/17.html.gone", "")
        let gone = await handler.reply(method: .get, path: "/alice/17.html")
        #expect(gone.status == .gone)
        #expect(gone.headers[.contentType] == "text/html; charset=utf-8")
        #expect(String(buffer: gone.body).contains("This post was deleted."))
        #expect(gone.headers[.contentLength] == String(gone.body.readableBytes))
        let head = await handler.reply(method: .head, path: "/alice/17.html")
        #expect(head.status == .gone && head.body.readableBytes == 0)
        #expect(head.headers[.contentLength] == gone.headers[.contentLength])

        #expect(await handler.reply(method: .get, path: "/alice/17.html.gone").status == .notFound)
        #expect(await handler.reply(method: .get, path: "/alice/18.html").status == .notFound)
        #expect(await handler.reply(method: .delete, path: "/alice/17.html").status == .methodNotAllowed)
        // A page written again over its tombstone is the page.
        try folder.write("alice/17.html", "<p>back</p>")
        #expect(await handler.reply(method: .get, path: "/alice/17.html").status == .ok)
    }

    /// Symbolic links below the folder are never followed, to a file or to
    /// a folder, out of the folder or not: nothing outside can be reached.
    @Test func noLinksFollowed() async throws {
        try "<h1>outside</h1>".write(to: folder.root.appendingPathComponent("outside.html"), atomically: true, encoding: .utf8)
        let links = [("evil.html", "../outside.html"), ("out", ".."), ("mirror.html", "alice.html"), ("in", "."),
                     ("bob/3.html.gone", "../alice.html")]
        try FileManager.default.createDirectory(at: folder.public.appendingPathComponent("bob"), withIntermediateDirectories: true)
        for (name, target) in links {
            try FileManager.default.createSymbolicLink(atPath: folder.public.appendingPathComponent(name).path,
                                                       withDestinationPath: target)
        }
        for path in ["/evil.html", "/out/outside.html", "/out/public/alice.html", "/mirror.html", "/in/alice.html",
                     "/bob/3.html"] {
            let reply = await handler.reply(method: .get, path: path)
            #expect(reply.status == .notFound, "\(path)")
            #expect(!String(buffer: reply.body).contains("outside"))
        }
    }

    /// Feeds are Atom, gzipped like pages when asked.
    @Test func feedsAreAtom() async throws {
        let feed = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">"
            + String(repeating: "<entry><title>A post</title></entry>\n", count: 50) + "</feed>\n"
        try folder.write("alice/feed.atom", feed)
        let plain = await handler.reply(method: .get, path: "/alice/feed.atom")
        #expect(plain.status == .ok)
        #expect(plain.headers[.contentType] == "application/atom+xml; charset=utf-8")
        #expect(String(buffer: plain.body) == feed)
        let packed = await handler.reply(method: .get, path: "/alice/feed.atom", fields: [.acceptEncoding: "gzip"])
        #expect(packed.headers[.contentType] == "application/atom+xml; charset=utf-8")
        #expect(packed.headers[.contentEncoding] == "gzip")
        var body = packed.body
        #expect(String(buffer: try body.decompress(with: .gzip())) == feed)
        #expect(PublicFolderHandler.route(method: .get, path: "/feed.ATOM")
                == .file(name: "feed.ATOM", contentType: "application/atom+xml; charset=utf-8", withBody: true))
    }

    @Test func acceptEncodingWeights() {
        #expect(ContentCoding.acceptsGzip("gzip"))
        #expect(ContentCoding.acceptsGzip("deflate, gzip;q=0.5"))
        #expect(ContentCoding.acceptsGzip("*"))
        #expect(ContentCoding.acceptsGzip("x-gzip"))
        #expect(ContentCoding.acceptsGzip(" GZIP ; q=1 "))
        #expect(!ContentCoding.acceptsGzip(nil))
        #expect(!ContentCoding.acceptsGzip(""))
        #expect(!ContentCoding.acceptsGzip("gzip;q=0"))
        #expect(!ContentCoding.acceptsGzip("gzip;q=0, *"), "named wins over *")
        #expect(!ContentCoding.acceptsGzip("br, deflate"))
    }

    @Test func httpDatesBothWays() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse(HTTPDate.format(1_800_000_000)) == 1_800_000_000)
        for bad in ["", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 32 Nov 1994 08:49:37 GMT",
                    "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC"] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }
}

/// A temporary folder with a public folder of pages, a stylesheet, a
/// hidden temporary file, a file of another type, a sub-folder named like
/// a page, and a secret beside the public folder. Removed when released.
final class TempFolder: Sendable {
    let root: URL
    var `public`: URL { root.appendingPathComponent("public") }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("blogweb-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("public")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("folder.html"), withIntermediateDirectories: true)
        for (name, text) in [("alice.html", "<h1>alice</h1>"), ("alice.2.html", "<h1>alice 2</h1>"),
                             ("style.css", "body{}"), ("index.html", "<h1>Blogs</h1>"),
                             (".alice.html.1.tmp", "half"), ("notes.txt", "text")] {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try "secret".write(to: root.appendingPathComponent("blog.sqlite"), atomically: true, encoding: .utf8)
    }

    /// Writes `text` to `name` below the public folder (folders made as
    /// needed).
    func write(_ name: String, _ text: String) throws {
        let file = self.public.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    /// Writes a page of `bytes` bytes named `name`.
    func writePage(_ name: String, bytes: Int) throws {
        try Data(repeating: UInt8(ascii: "x"), count: bytes).write(to: self.public.appendingPathComponent(name))
    }

    deinit { try? FileManager.default.removeItem(at: root) }
}
