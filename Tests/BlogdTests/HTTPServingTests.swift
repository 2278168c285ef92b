import Foundation
import Synchronization
import Testing
import BlogTestSupport

/// `blogd serve --http PORT`: the public folder over HTTP, on the real
/// binary, beside the blog protocol. (`BlogWebTests` test the web server
/// in-process, its limits included.)
@Suite(.serialized)
struct HTTPServingTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-http-\(UUID().uuidString)")
        let publicFolder = folder.appendingPathComponent("public")
        try FileManager.default.createDirectory(at: publicFolder, withIntermediateDirectories: true)
        try "body { color: #222 }\n".write(to: publicFolder.appendingPathComponent("style.css"), atomically: true, encoding: .utf8)
        try "secret".write(to: folder.appendingPathComponent("secret.html"), atomically: true, encoding: .utf8)
    }

    /// Starts blogd with HTTP on; returns the process, protocol port, HTTP port.
    func start(_ extra: [String] = [], environment more: [String: String] = [:]) throws -> (BlogdProcess, Int, Int) {
        let server = try BlogdProcess(
            ["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0",
             "--db", folder.appendingPathComponent("blog.sqlite").path,
             "--public", folder.appendingPathComponent("public").path] + extra,
            environment: environment.merging(more) { $1 })
        let port = try server.waitForPort()
        return (server, port, try server.waitForHTTPPort())
    }

    /// The pages' `Link` to Micropub (W3C Micropub, 5.3) is root-relative
    /// without a `base_url`: an absolute one would name `http://localhost/`
    /// to every reader elsewhere. With one, it is absolute under it.
    @Test func micropubLinkFollowsTheBaseURL() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let (server, _, http) = try start()
            defer { _ = server.stop() }
            #expect(try httpRequest(port: http, path: "/index.html").headers["link"] == "</micropub>; rel=\"micropub\"")
        }
        let (server, _, http) = try start(environment: ["BLOGD_BASE_URL": "https://blog.example.org/"])
        defer { _ = server.stop() }
        #expect(try httpRequest(port: http, path: "/index.html").headers["link"]
                    == "<https://blog.example.org/micropub>; rel=\"micropub\"")
    }

    /// A placed post: its map page, with the scripts it loads served from
    /// the public folder (Leaflet copied there when libjs-leaflet is
    /// installed, as CI does), never from elsewhere.
    @Test func mapPageAndItsScripts() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port, http) = try start()
        defer { _ = server.stop() }
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("geopost:alice:60.1699:24.9384:Helsinki:By the sea[E];", port: port) == "post:OK[E];")
        // The map page is written with the feed, within a second.
        var map = try httpRequest(port: http, path: "/alice.map.html")
        let deadline = Date().addingTimeInterval(60)
        while map.status != 200 && Date() < deadline {
            usleep(50_000)
            map = try httpRequest(port: http, path: "/alice.map.html")
        }
        #expect(map.status == 200 && map.body.contains("data-lat=\"60.1699\" data-lon=\"24.9384\""))
        let script = try httpRequest(port: http, path: "/map.js")
        #expect(script.status == 200 && script.body.contains("L.map(element)"))
        let leaflet = try httpRequest(port: http, path: "/leaflet/leaflet.js")
        if FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js") {
            #expect(leaflet.status == 200 && leaflet.body.contains("Leaflet"))
            #expect(try httpRequest(port: http, path: "/leaflet/images/marker-icon.png").status == 200)
        } else {
            #expect(leaflet.status == 404)
            #expect(server.stderr.contains("Leaflet not found"))
        }
    }

    /// A post's own page, its feed, and after its deletion 410 Gone.
    @Test func postPagesFeedsAndGone() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port, http) = try start()
        defer { _ = server.stop() }
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("newpost:alice:Hello web:First[E];", port: port) == "post:OK[E];")
        let listing = try exchange("posts:alice[E];", port: port)
        let id = try #require(listing.split(separator: "\n").dropFirst().first?.split(separator: "\t").first)
        let page = try httpRequest(port: http, path: "/alice/\(id).html")
        #expect(page.status == 200 && page.body.contains("Hello web") && page.body.contains("<base href=\"../\">"))
        #expect(try httpRequest(port: http, path: "/alice.html").body.contains("href=\"alice/\(id).html\""))
        // Written in the background, at most once a second (the empty
        // feed of the registration came just before): waited for (the
        // bound only stops a broken test).
        var feed = try httpRequest(port: http, path: "/alice.atom")
        _ = waitUntil(timeout: 60) {
            feed = (try? httpRequest(port: http, path: "/alice.atom")) ?? feed
            return feed.status == 200 && feed.body.contains("Hello web")
        }
        #expect(feed.status == 200 && feed.headers["content-type"]?.hasPrefix("application/atom+xml") == true)
        #expect(feed.body.contains("Hello web"))
        #expect(try exchange("delpost:alice:\(id)[E];", port: port) == "del:OK[E];")
        #expect(try httpRequest(port: http, path: "/alice/\(id).html").status == 410)
        #expect(try httpRequest(port: http, path: "/alice/\(id).html.gone").status == 404)
        #expect(try !httpRequest(port: http, path: "/alice.atom").body.contains("Hello web"), "the feed before the reply")
    }

    @Test func servesPagesTheIndexAndTheStylesheet() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port, http) = try start()
        defer { _ = server.stop() }
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("newpost:alice:Hello web:First <post>[E];", port: port) == "post:OK[E];")
        #expect(try exchange("register:bob:pw[E];", port: port) == "reg:OK[E];")

        let page = try httpRequest(port: http, path: "/alice.html")
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.body.contains("\">Hello web</a></h2>"))
        #expect(page.body.contains("First &lt;post&gt;"))

        let css = try httpRequest(port: http, path: "/style.css")
        #expect(css.status == 200)
        #expect(css.headers["content-type"] == "text/css; charset=utf-8")

        // The index follows registers and posts within moments.
        var index = try httpRequest(port: http, path: "/")
        let deadline = Date().addingTimeInterval(60)
        while !index.body.contains("bob.html") && Date() < deadline {
            usleep(50_000)
            index = try httpRequest(port: http, path: "/index.html")
        }
        #expect(index.status == 200)
        let alice = try #require(index.body.range(of: "href=\"alice.html\""))
        let bob = try #require(index.body.range(of: "href=\"bob.html\""))
        #expect(alice.lowerBound < bob.lowerBound, "the blog with a post comes first")
    }

    @Test func healthCheckAsksTheDatabase() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, _, http) = try start()
        defer { _ = server.stop() }
        let health = try httpRequest(port: http, path: "/healthz")
        #expect(health.status == 200)
        #expect(health.body == "ok\n")
    }

    @Test func escapesAndMissingFilesAre404() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, _, http) = try start()
        defer { _ = server.stop() }
        for path in ["/../secret.html", "/../../etc/passwd", "/%2e%2e/secret.html", "/%2e%2e%2fsecret.html",
                     "/..%2fsecret.html", "/public/../secret.html", "//etc/passwd", "/%2Fetc%2Fpasswd",
                     "/missing.html", "/blog.sqlite"] {
            let reply = try httpRequest(port: http, path: path)
            #expect(reply.status == 404, "\(path) gave \(reply.status)")
            #expect(!reply.body.contains("secret") && !reply.body.contains("root:"))
        }
    }

    @Test func readOnlyOverTheWire() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port, http) = try start()
        defer { _ = server.stop() }
        #expect(try exchange("register:carol:pw[E];", port: port) == "reg:OK[E];")
        #expect(try httpRequest(port: http, method: "PUT", path: "/carol.html").status == 405)
        #expect(try httpRequest(port: http, method: "DELETE", path: "/carol.html").status == 405)
        #expect(try httpRequest(port: http, path: "/carol.html").status == 200)
    }

    @Test func offByDefault() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try BlogdProcess(
            ["serve", "--host", "127.0.0.1", "--port", "0",
             "--db", folder.appendingPathComponent("blog.sqlite").path,
             "--public", folder.appendingPathComponent("public").path],
            environment: environment)
        _ = try server.waitForPort()
        #expect(!server.stderr.contains("http on"))
        #expect(server.stop() == 0)
    }

    @Test func httpPortInUseIsOneClearError() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (first, _, http) = try start()
        defer { _ = first.stop() }
        let result = try runBlogd(
            ["serve", "--host", "127.0.0.1", "--port", "0", "--http", "\(http)",
             "--db", folder.appendingPathComponent("other.sqlite").path,
             "--public", folder.appendingPathComponent("public").path],
            environment: environment)
        #expect(result.status == 1)
        #expect(result.err.split(separator: "\n").last?.hasPrefix("blogd: HTTP: cannot listen") == true, "\(result.err)")
    }

    @Test func hugeHeadersHoldUpNeitherTheBlogPortNorSIGTERM() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port, http) = try start()
        defer { server.ensureStopped() }
        // Two attackers, each sending 512 KiB of one header line, again and
        // again until the blog requests below are done.
        let state = AttackState()
        let attack = Array("GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 512 * 1024)
        for _ in 0..<2 {
            Thread {
                while state.attacking.load(ordering: .relaxed) {
                    guard let connection = try? WireConnection(port: http) else { continue }
                    connection.sendAll(attack)
                    // The server answers 431 and closes, or just closes (a
                    // reset); a receive timeout means it held on.
                    switch Result(catching: { try connection.readToEnd() }) {
                    case .success, .failure(WireConnection.Failure.receive(ECONNRESET)): state.rounds.add(1, ordering: .relaxed)
                    case .failure: state.hung.add(1, ordering: .relaxed)
                    }
                    connection.close()
                }
                state.finished.add(1, ordering: .relaxed)
            }.start()
        }
        #expect(server.waitUntil(timeout: 60) { state.rounds.load(ordering: .relaxed) >= 2 }, "the attack is on")
        #expect(try exchange("register:mallory:pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("login:mallory:pw[E];", port: port) == "log:OK[E];")
        #expect(try httpRequest(port: http, path: "/style.css").status == 200)
        state.attacking.store(false, ordering: .relaxed)
        #expect(server.waitUntil(timeout: 60) { state.finished.load(ordering: .relaxed) == 2 })
        #expect(state.hung.load(ordering: .relaxed) == 0)

        // A hostile connection still open at SIGTERM: a head trickling in.
        let before = server.openSocketCount ?? 0
        let trickler = try WireConnection(port: http)
        defer { trickler.close() }
        try trickler.send("GET / HTTP/1.1\r\nX-Big: aaaa")
        #expect(server.waitUntil(timeout: 30) { (server.openSocketCount ?? 0) > before }, "the server holds the connection")
        #expect(server.stop() == 0, "the first SIGTERM stops blogd")
        #expect(server.stderr.contains("stopped"))
    }
}

/// What the attacker threads share with the test.
private final class AttackState: Sendable {
    let attacking = Atomic<Bool>(true)
    /// Attacks the server ended (431 and closed, or reset).
    let rounds = Atomic<Int>(0)
    /// Attacks the server held on to past the client's receive timeout.
    let hung = Atomic<Int>(0)
    /// Attacker threads that have stopped.
    let finished = Atomic<Int>(0)
}
