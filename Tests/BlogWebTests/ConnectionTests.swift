import Foundation
import Logging
import Synchronization
import Testing
@testable import BlogWeb

/// How the web server handles a connection over real sockets: pipelined
/// requests answered in order whether the page is in memory or not, a
/// client that closes its side after its request, HTTP/1.0, the absolute
/// form of a request target, and a page rewritten on disk served fresh.
@Suite
struct ConnectionTests {
    let folder: TempFolder

    init() throws {
        folder = try TempFolder()
    }

    func start(clock: @escaping @Sendable () -> UInt64 = { 0 }) async throws -> WebServer {
        try await WebServer(folder: folder.public, host: "127.0.0.1", port: 0, logger: Logger(label: "test.http"), limits: .patient, clock: clock)
    }

    /// Requests sent at once come back in their order: a page read from
    /// disk first (the slow way) does not let the page in memory behind it
    /// overtake it.
    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let web = try await start()
        let port = web.port
        let (warm, replies) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            let warm = try connection.request("/alice.html")
            connection.send(["/alice.2.html", "/alice.html", "/missing.html", "/style.css", "/alice.html"]
                .map { "GET \($0) HTTP/1.1\r\nHost: localhost\r\n\r\n" }.joined())
            return (warm, try (0..<5).map { _ in try connection.readResponse() })
        }
        #expect(warm.text == "<h1>alice</h1>")
        #expect(replies.map(\.status) == [200, 200, 404, 200, 200])
        #expect(replies.map(\.text) == ["<h1>alice 2</h1>", "<h1>alice</h1>", "not found\n", "body{}", "<h1>alice</h1>"])
        await web.stop()
    }

    /// A client that sends its request and closes its side (`nc -N`) gets
    /// the whole answer, then the end of the connection, from memory or not.
    @Test func aHalfClosedClientGetsItsAnswer() async throws {
        let web = try await start()
        let port = web.port
        let results = try await offPool {
            try ["/alice.html", "/alice.html", "/alice.2.html"].map { path in
                let connection = try RawHTTPConnection(port: port)
                defer { connection.close() }
                connection.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n")
                connection.socket.shutdownWrite()
                return (try connection.readResponse(), try connection.readUntilEnd())
            }
        }
        for (reply, end) in results {
            #expect(reply.status == 200)
            #expect(reply.text.hasPrefix("<h1>alice"))
            #expect(end.end == .closed && end.bytes.isEmpty)
        }
        await web.stop()
    }

    /// HTTP/1.0 without keep-alive: the answer, then the end; with it, the
    /// connection stays for the next request and says so.
    @Test func http10() async throws {
        let web = try await start()
        let port = web.port
        let (once, end, kept, next) = try await offPool {
            let first = try RawHTTPConnection(port: port)
            defer { first.close() }
            first.send("GET /alice.html HTTP/1.0\r\n\r\n")
            let once = try first.readResponse()
            let end = try first.readUntilEnd()
            let second = try RawHTTPConnection(port: port)
            defer { second.close() }
            second.send("GET /alice.html HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let kept = try second.readResponse()
            second.send("GET /alice.2.html HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            return (once, end, kept, try second.readResponse())
        }
        #expect(once.status == 200 && once.text == "<h1>alice</h1>")
        #expect(end.end == .closed)
        #expect(kept.headers["connection"]?.lowercased() == "keep-alive")
        #expect(next.text == "<h1>alice 2</h1>")
        await web.stop()
    }

    /// The absolute form of a target (`GET http://host/page`) names the
    /// same file; its path is checked like any other.
    @Test func absoluteFormTargets() async throws {
        let web = try await start()
        let port = web.port
        let replies = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            return try ["http://localhost/alice.html", "http://localhost/../blog.sqlite", "http://localhost"]
                .map { try connection.request($0) }
        }
        #expect(replies[0].status == 200 && replies[0].text == "<h1>alice</h1>")
        #expect(replies[1].status == 404)
        #expect(replies[2].status == 200 && replies[2].text == "<h1>Blogs</h1>")
        await web.stop()
    }

    /// A large page arrives whole, again on the same connection and on
    /// others, and a new version renamed over it is served whole too.
    @Test func largePagesComeWhole() async throws {
        let page = (0..<3_000).map { "<p>line \($0) of a long page</p>\n" }.joined()
        try folder.write("long.html", page)
        let clock = Atomic<UInt64>(0)
        let web = try await start(clock: { clock.load(ordering: .relaxed) })
        let port = web.port
        let texts = try await offPool {
            try (0..<3).map { _ in
                let connection = try RawHTTPConnection(port: port)
                defer { connection.close() }
                return try (0..<3).map { _ in try connection.request("/long.html").text }
            }.flatMap { $0 }
        }
        #expect(texts.allSatisfy { $0 == page })
        try folder.write(".long.html.tmp", page + "<p>one more</p>\n")
        #expect(rename(folder.public.appendingPathComponent(".long.html.tmp").path,
                       folder.public.appendingPathComponent("long.html").path) == 0)
        // Past the time a page in memory goes unchecked.
        clock.add(10_000_000_000, ordering: .relaxed)
        let next = try await offPool { try RawHTTPConnection(port: port).request("/long.html", close: true) }
        #expect(next.text == page + "<p>one more</p>\n")
        await web.stop()
    }

    /// A page in memory is served without looking at its file for a short
    /// while (on the server's clock); once that has passed, a page blogd
    /// rewrote is served fresh, and a page it deleted is gone.
    @Test func aRewrittenPageIsServedFresh() async throws {
        let clock = Atomic<UInt64>(1_000_000_000)
        let (seconds, attoseconds) = WebServer.pageCheckInterval.components
        let interval = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        let web = try await start(clock: { clock.load(ordering: .relaxed) })
        let port = web.port
        let get: @Sendable (String) throws -> RawResponse = { path in
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            return try connection.request(path, close: true)
        }
        #expect(try await offPool { try get("/alice.html") }.text == "<h1>alice</h1>")
        try folder.write(".alice.html.tmp", "<h1>alice, again</h1>")
        #expect(rename(folder.public.appendingPathComponent(".alice.html.tmp").path,
                       folder.public.appendingPathComponent("alice.html").path) == 0)
        #expect(try await offPool { try get("/alice.html") }.text == "<h1>alice</h1>", "trusted a moment")
        clock.add(interval, ordering: .relaxed)
        #expect(try await offPool { try get("/alice.html") }.text == "<h1>alice, again</h1>")

        try FileManager.default.removeItem(at: folder.public.appendingPathComponent("alice.html"))
        try folder.write("alice.html.gone", "")
        clock.add(interval, ordering: .relaxed)
        #expect(try await offPool { try get("/alice.html") }.status == 410)
        await web.stop()
    }
}
