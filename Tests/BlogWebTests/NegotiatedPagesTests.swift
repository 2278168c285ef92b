import Foundation
import Logging
import BlogTestSupport
import Testing
@testable import BlogWeb

/// An application may take a page of the public folder by the request's
/// `Accept` (`handles(head:)`): over one keep-alive connection, turn by
/// turn, each client gets its own representation, the cache warm or not,
/// and the pages say `Vary: Accept`; an application that does not
/// negotiate leaves `Vary` and the pages as they were.
@Suite
struct NegotiatedPagesTests {
    let folder: TempFolder

    init() throws {
        folder = try TempFolder()
        try folder.write("bob.html.gone", "")
    }

    /// Takes `/alice.html` from clients that accept `application/x-toy`.
    struct Toy: WebApplication {
        var negotiates = true
        func handles(path: String) -> Bool { false }
        func handles(head: WebRequestHead) -> Bool {
            head.path == "/alice.html" && head.accept?.contains("application/x-toy") == true
        }
        var negotiatesPages: Bool { negotiates }
        func bodyLimit(path: String) -> Int { 0 }
        func respond(to request: WebRequest) -> WebResponse {
            WebResponse(status: .ok, contentType: "application/x-toy", body: Array("toy \(request.head.accept ?? "")".utf8),
                        headers: [.vary: "Accept"])
        }
    }

    func start(_ app: Toy) async throws -> WebServer {
        try await WebServer(folder: folder.public, host: "127.0.0.1", port: 0, logger: Logger(label: "test.http"), limits: .patient, application: app)
    }

    @Test func eachClientGetsItsOwnRepresentationTurnByTurn() async throws {
        let web = try await start(Toy())
        let port = web.port
        let answers = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            var answers: [RawResponse] = []
            for _ in 0..<3 {
                answers.append(try connection.request("/alice.html", fields: ["Accept: text/html"]))
                answers.append(try connection.request("/alice.html", fields: ["Accept: text/html, application/x-toy;q=0.5"]))
                answers.append(try connection.request("/alice.html"))
            }
            return answers
        }
        for (index, answer) in answers.enumerated() {
            #expect(answer.status == 200)
            if index % 3 == 1 {
                #expect(answer.text == "toy text/html, application/x-toy;q=0.5" && answer.headers["vary"] == "Accept")
            } else {
                #expect(answer.text == "<h1>alice</h1>" && answer.headers["vary"] == "Accept, Accept-Encoding", "\(index)")
            }
        }
        // A client naming the page's tag still gets its own representation, not a 304.
        let etag = try #require(answers[0].headers["etag"])
        let (cached, toy) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            return (try connection.request("/alice.html", fields: ["If-None-Match: \(etag)"]),
                    try connection.request("/alice.html", fields: ["If-None-Match: \(etag)", "Accept: application/x-toy"]))
        }
        #expect(cached.status == 304)
        #expect(toy.status == 200 && toy.text == "toy application/x-toy")
        await web.stop()
    }

    @Test func withoutNegotiationThePagesVaryByEncodingOnly() async throws {
        let web = try await start(Toy(negotiates: false))
        let port = web.port
        let (page, css, deleted) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            return (try connection.request("/alice.2.html"), try connection.request("/style.css"),
                    try connection.request("/bob.html"))
        }
        #expect(page.headers["vary"] == "Accept-Encoding" && css.headers["vary"] == "Accept-Encoding")
        #expect(deleted.status == 410 && deleted.headers["vary"] == nil)
        await web.stop()
        let negotiating = try await start(Toy())
        let (page2, css2, gone) = try await offPool { [port = negotiating.port] in
            let connection = try RawHTTPConnection(port: port)
            return (try connection.request("/alice.2.html"), try connection.request("/style.css"),
                    try connection.request("/bob.html"))
        }
        #expect(page2.headers["vary"] == "Accept, Accept-Encoding", "every page: the application may take any")
        #expect(css2.headers["vary"] == "Accept-Encoding", "not a page")
        #expect(gone.status == 410 && gone.headers["vary"] == "Accept", "a deleted post's JSON is 410 too")
        await negotiating.stop()
    }

    @Test func theDefaultHookIsThePath() {
        struct Paths: WebApplication {
            func handles(path: String) -> Bool { path == "/p" }
            func bodyLimit(path: String) -> Int { 0 }
            func respond(to request: WebRequest) -> WebResponse { WebResponse(status: .ok) }
        }
        #expect(Paths().handles(head: WebRequestHead(method: .get, path: "/p", accept: "x/y")))
        #expect(!Paths().handles(head: WebRequestHead(method: .get, path: "/q")))
        #expect(!Paths().negotiatesPages)
        let set = ApplicationSet([Paths(), Toy()])
        #expect(set.negotiatesPages && set.handles(head: WebRequestHead(method: .get, path: "/alice.html", accept: "application/x-toy")))
        #expect(set.respond(to: WebRequest(method: .get, path: "/alice.html", headers: [.accept: "application/x-toy"])).status == .ok)
        #expect(set.respond(to: WebRequest(method: .get, path: "/alice.html")).status == .notFound)
    }
}
