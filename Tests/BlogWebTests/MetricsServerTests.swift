import Logging
import NIOHTTP1
import Testing
@testable import BlogWeb

/// The metrics listener: what it answers, and what it lets a client take.
/// Timeouts here only guard against a hang (see `HostileClientTests`).
@Suite
struct MetricsServerTests {
    static let figures = "# TYPE blogd_requests_total counter\nblogd_requests_total{command=\"login\",reply=\"log:OK\"} 2\n"

    func start(_ limits: MetricsServer.Limits = .init()) async throws -> MetricsServer {
        try await MetricsServer(host: "127.0.0.1", port: 0, logger: Logger(label: "test.metrics"), limits: limits) {
            Array(Self.figures.utf8)
        }
    }

    @Test func routes() {
        #expect(MetricsResponder.route(method: .GET, target: "/metrics") == .metrics(withBody: true))
        #expect(MetricsResponder.route(method: .HEAD, target: "/metrics") == .metrics(withBody: false))
        #expect(MetricsResponder.route(method: .GET, target: "/metrics?name[]=x") == .metrics(withBody: true))
        #expect(MetricsResponder.route(method: .GET, target: "/") == .notFound)
        #expect(MetricsResponder.route(method: .GET, target: "/metrics/") == .notFound)
        #expect(MetricsResponder.route(method: .GET, target: "/index.html") == .notFound)
        #expect(MetricsResponder.route(method: .POST, target: "/metrics") == .methodNotAllowed)
        #expect(MetricsResponder.route(method: .DELETE, target: "/metrics") == .methodNotAllowed)
    }

    @Test func servesTheFiguresAndClosesAfterEachReply() async throws {
        let metrics = try await start()
        let port = metrics.port
        let (reply, end) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            return (try connection.request("/metrics"), try connection.readUntilEnd().end)
        }
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(reply.headers["connection"] == "close")
        #expect(reply.text == Self.figures)
        #expect(end == .closed, "one request per connection, even kept alive")

        let head = try await offPool { try RawHTTPConnection(port: port).request("/metrics", method: "HEAD") }
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.headers["content-length"] == String(Self.figures.utf8.count))
        let other = try await offPool { try RawHTTPConnection(port: port).request("/alice.html") }
        #expect(other.status == 404)
        let post = try await offPool { try RawHTTPConnection(port: port).request("/metrics", method: "POST") }
        #expect(post.status == 405 && post.headers["allow"] == "GET, HEAD")
        await metrics.stop()
    }

    @Test func aHeadOverItsSmallLimitGets431OrIsClosed() async throws {
        let metrics = try await start(.init(timeout: .seconds(86_400)))
        let port = metrics.port
        let (end, bytes) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            connection.send("GET /metrics HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 64 * 1024))
            return try connection.readUntilEnd()
        }
        let reply = String(decoding: bytes, as: UTF8.self)
        #expect(reply.isEmpty || reply.hasPrefix("HTTP/1.1 431"), "\(reply)")
        #expect(end == .closed || end == .reset)
        await metrics.stop()
    }

    @Test func aSilentConnectionIsClosed() async throws {
        let metrics = try await start(.init(timeout: .milliseconds(500)))
        let port = metrics.port
        let end = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            return try connection.readUntilEnd()
        }
        #expect(end.end == .closed && end.bytes.isEmpty)
        await metrics.stop()
    }

    @Test func pastItsConnectionsANewcomerWaitsForAPlace() async throws {
        // Silent connections that only the client may end.
        let metrics = try await start(.init(maxConnections: 2, timeout: .seconds(86_400)))
        let port = metrics.port
        let (first, second, third) = try await offPool {
            (try RawHTTPConnection(port: port), try RawHTTPConnection(port: port), try RawHTTPConnection(port: port))
        }
        defer { second.close(); third.close() }
        // Accepted in order: the first two hold both places, so the third
        // waits in the backlog, its request unread. (A busy machine could
        // only make this say false where something was on its way.)
        third.send("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(!third.somethingArrives(within: 0.5), "answered past the connection limit")
        first.close()
        let reply = try await offPool { try third.readResponse() }
        #expect(reply.status == 200)
        await metrics.stop()
    }

    @Test func aBadHostIsOneClearError() async throws {
        await #expect(throws: MetricsServer.StartError.badHost("example.org")) {
            try await MetricsServer(host: "example.org", port: 0, logger: Logger(label: "test.metrics")) { [] }
        }
    }
}
