import BlogSockets
import CompressNIO
import Foundation
import Logging
import NIOCore
import Synchronization
import Testing
@testable import BlogWeb

/// A real `WebServer` on 127.0.0.1, port 0, in this process, over raw
/// sockets: what a client gets for each kind of request.
@Suite
struct WebServerTests {
    let folder: TempFolder

    init() throws {
        folder = try TempFolder()
    }

    func start(host: String = "127.0.0.1", limits: WebServer.Limits = .patient) async throws -> WebServer {
        try await WebServer(folder: folder.public, host: host, port: 0, logger: Logger(label: "test.http"), limits: limits)
    }

    @Test func servesPagesTheIndexAndTheStylesheet() async throws {
        let web = try await start()
        #expect(web.port > 0)
        let port = web.port
        let (page, index, css) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            return (try connection.request("/alice.html"), try connection.request("/"), try connection.request("/style.css"))
        }
        #expect(page.status == 200)
        #expect(page.text == "<h1>alice</h1>")
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["cache-control"] == "no-cache")
        #expect(page.headers["x-content-type-options"] == "nosniff")
        #expect(index.text == "<h1>Blogs</h1>")
        #expect(css.headers["content-type"] == "text/css; charset=utf-8")
        await web.stop()
    }

    /// Over the wire: a `Date` on every response, and a 304 with no body
    /// that leaves the keep-alive connection ready for the next request.
    @Test func dateAndConditionalGetOverTheWire() async throws {
        let web = try await start()
        let port = web.port
        let (page, cached, next) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            let page = try connection.request("/alice.html")
            let cached = try connection.request("/alice.html", fields: ["If-None-Match: \(page.headers["etag"] ?? "")"])
            return (page, cached, try connection.request("/alice.2.html"))
        }
        #expect(page.status == 200)
        #expect(HTTPDate.parse(page.headers["date"] ?? "") != nil, "\(page.headers)")
        #expect(page.headers["etag"] != nil && page.headers["last-modified"] != nil)
        #expect(cached.status == 304)
        #expect(cached.body.isEmpty)
        #expect(HTTPDate.parse(cached.headers["date"] ?? "") != nil)
        #expect(next.status == 200 && next.text == "<h1>alice 2</h1>")
        await web.stop()
    }

    /// gzip over the wire: the body that arrives is the page, gzipped, and
    /// the keep-alive connection goes on after it.
    @Test func gzipOverTheWire() async throws {
        let text = String(repeating: "<p>the same line of a post, again and again</p>\n", count: 400)
        try Data(text.utf8).write(to: folder.public.appendingPathComponent("carol.html"))
        let web = try await start()
        let port = web.port
        let (packed, next) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            return (try connection.request("/carol.html", fields: ["Accept-Encoding: gzip"]), try connection.request("/alice.html"))
        }
        #expect(packed.status == 200)
        #expect(packed.headers["content-encoding"] == "gzip")
        var body = ByteBuffer(bytes: packed.body)
        #expect(String(buffer: try body.decompress(with: .gzip())) == text)
        #expect(next.status == 200 && next.text == "<h1>alice</h1>")
        await web.stop()
    }

    /// A log handler that keeps the lines it is given.
    final class Lines: Sendable {
        let all = Mutex<[String]>([])
    }

    struct Captured: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            lines.all.withLock { $0.append("\(event.message) \(fields)") }
        }
    }

    /// With an access log, one line a request: method, path (control
    /// characters replaced), status, bytes, time and peer.
    @Test func accessLogHasALineARequest() async throws {
        let lines = Lines()
        let captured = Captured(lines: lines)
        let web = try await WebServer(folder: folder.public, host: "127.0.0.1", port: 0, logger: Logger(label: "test.http"),
                                      limits: .patient, accessLog: Logger(label: "test.access") { _ in captured })
        let port = web.port
        _ = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            _ = try connection.request("/alice.html")
            _ = try connection.request("/missing.html")
            return try connection.request("/alice.html", method: "HEAD")
        }
        await web.stop()
        let logged = lines.all.withLock { $0 }
        #expect(logged.count == 3, "\(logged)")
        #expect(logged.first?.hasPrefix("GET /alice.html 200 14 ms=") == true, "\(logged)")
        #expect(logged.first?.hasSuffix("peer=127.0.0.1") == true, "\(logged)")
        #expect(logged.dropFirst().first?.hasPrefix("GET /missing.html 404 ") == true, "\(logged)")
        #expect(logged.last?.hasPrefix("HEAD /alice.html 200 0 ") == true, "\(logged)")
    }

    @Test func headGivesTheLengthAndNoBody() async throws {
        let web = try await start()
        let port = web.port
        let (head, next) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            // The next response on the connection starts right after the
            // head: no body bytes came between.
            return (try connection.request("/alice.html", method: "HEAD"), try connection.request("/alice.2.html"))
        }
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "14")
        #expect(head.body.isEmpty)
        #expect(next.status == 200 && next.text == "<h1>alice 2</h1>")
        await web.stop()
    }

    @Test func escapesEncodingsAndOtherFilesAre404() async throws {
        let web = try await start()
        let port = web.port
        let paths = ["/../blog.sqlite", "/%2e%2e/blog.sqlite", "/%2e%2e%2fblog.sqlite", "/..%2fblog.sqlite",
                     "/public/../blog.sqlite", "//etc/passwd", "/%2Fetc%2Fpasswd", "/.alice.html.1.tmp",
                     "/notes.txt", "/missing.html", "/folder.html", "/alice%2ehtml", "/sub/alice.html"]
        let replies = try await offPool {
            try paths.map { path in
                let connection = try RawHTTPConnection(port: port)
                defer { connection.close() }
                return (path, try connection.request(path, close: true))
            }
        }
        for (path, reply) in replies {
            #expect(reply.status == 404, "\(path)")
            #expect(!reply.text.contains("secret") && !reply.text.contains("half"), "\(path)")
        }
        await web.stop()
    }

    /// A deleted post's page (a tombstone beside where it was) is a 410
    /// with a short HTML page; the keep-alive connection goes on after it,
    /// and the tombstone itself is a 404.
    @Test func deletedPostIs410OverTheWire() async throws {
        try folder.write("alice/16.html", "<p>16</p>")
        try folder.write("alice/17.html.gone", "")
        let web = try await start()
        let port = web.port
        let (kept, gone, head, tombstone) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            return (try connection.request("/alice/16.html"), try connection.request("/alice/17.html"),
                    try connection.request("/alice/17.html", method: "HEAD"), try connection.request("/alice/17.html.gone"))
        }
        #expect(kept.status == 200 && kept.text == "<p>16</p>")
        #expect(gone.status == 410)
        #expect(gone.headers["content-type"] == "text/html; charset=utf-8")
        #expect(gone.text.contains("This post was deleted."))
        #expect(head.status == 410 && head.body.isEmpty && head.headers["content-length"] == gone.headers["content-length"])
        #expect(tombstone.status == 404)
        await web.stop()
    }

    /// A feed over the wire: Atom's media type, gzipped when asked.
    @Test func feedOverTheWire() async throws {
        let feed = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">"
            + String(repeating: "<entry><title>A post</title></entry>\n", count: 50) + "</feed>\n"
        try folder.write("alice/feed.atom", feed)
        let web = try await start()
        let port = web.port
        let (plain, packed) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            return (try connection.request("/alice/feed.atom"),
                    try connection.request("/alice/feed.atom", fields: ["Accept-Encoding: gzip"]))
        }
        #expect(plain.status == 200 && plain.text == feed)
        #expect(plain.headers["content-type"] == "application/atom+xml; charset=utf-8")
        #expect(packed.headers["content-type"] == "application/atom+xml; charset=utf-8")
        #expect(packed.headers["content-encoding"] == "gzip")
        var body = ByteBuffer(bytes: packed.body)
        #expect(String(buffer: try body.decompress(with: .gzip())) == feed)
        await web.stop()
    }

    @Test func otherMethodsAre405() async throws {
        let web = try await start()
        let port = web.port
        let replies = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            return try ["PUT", "DELETE", "POST", "OPTIONS"].map { try connection.request("/alice.html", method: $0) }
        }
        for reply in replies {
            #expect(reply.status == 405)
            #expect(reply.headers["allow"] == "GET, HEAD")
        }
        await web.stop()
    }

    @Test func aQueryIsIgnored() async throws {
        let web = try await start()
        let port = web.port
        let reply = try await offPool { try RawHTTPConnection(port: port).request("/alice.html?v=2", close: true) }
        #expect(reply.status == 200 && reply.text == "<h1>alice</h1>")
        await web.stop()
    }

    @Test func localhostAndEveryAddress() async throws {
        let local = try await start(host: "localhost")
        let localPort = local.port
        #expect(try await offPool { try RawHTTPConnection(port: localPort).request("/", close: true).status } == 200)
        await local.stop()

        let every = try await start(host: "*")
        let everyPort = every.port
        #expect(try await offPool { try RawHTTPConnection(port: everyPort).request("/", close: true).status } == 200)
        // IPv6 too, where this machine has it.
        if let ipv6 = try? await offPool({ try RawHTTPConnection(port: everyPort, host: "::1") }) {
            #expect(try await offPool { try ipv6.request("/", close: true).status } == 200)
            ipv6.close()
        }
        await every.stop()
    }

    @Test func badHostIsOneClearError() async {
        for host in ["example.com", "[::1]", "1.2.3"] {
            await #expect(throws: WebServer.StartError.badHost(host)) {
                _ = try await WebServer(folder: folder.public, host: host, port: 0, logger: Logger(label: "test.http"))
            }
        }
        #expect(WebServer.StartError.badHost("x").description == "HTTP: cannot listen on 'x': give an IPv4 or IPv6 address, localhost or *")
    }

    @Test func portInUseIsOneClearError() async throws {
        let first = try await start()
        do {
            _ = try await WebServer(folder: folder.public, host: "127.0.0.1", port: first.port, logger: Logger(label: "test.http"))
            Issue.record("a second server started on a port in use")
        } catch {
            #expect(error == .cannotListen(host: "127.0.0.1", port: first.port, reason: "Address already in use"))
            #expect(error.description == "HTTP: cannot listen on 127.0.0.1:\(first.port): Address already in use")
        }
        await first.stop()
    }

    @Test func stopIsIdempotent() async throws {
        let web = try await start()
        await web.stop()
        await web.stop()
        #expect(web.openConnections == 0)
    }
}
