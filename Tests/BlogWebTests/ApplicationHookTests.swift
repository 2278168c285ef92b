import Dispatch
import Foundation
import Logging
import Synchronization
import BlogTestSupport
import Testing
@testable import BlogWeb

/// The web server hands an application's paths to it, body and all, over
/// real sockets: the body read whole (declared or chunked), refused with
/// `413` past the application's limit before it is read, `100 Continue`
/// for a client that waits for it, HEAD without a body, the peer's
/// address; a busy application neither holds the pages nor queues
/// without bound.
@Suite
struct ApplicationHookTests {
    let folder: TempFolder

    init() throws {
        folder = try TempFolder()
    }

    /// Answers with what it received; `/gate` waits until the gate opens.
    struct Echo: WebApplication {
        let gate: DispatchSemaphore
        let entered: DispatchSemaphore

        init(gate: DispatchSemaphore = DispatchSemaphore(value: 0), entered: DispatchSemaphore = DispatchSemaphore(value: 0)) {
            self.gate = gate
            self.entered = entered
        }

        func handles(path: String) -> Bool { path.hasPrefix("/echo") || path == "/gate" }
        func refusal(beforeReading request: WebRequest) -> WebResponse? {
            request.path == "/echo-refused" ? WebResponse(status: .tooManyRequests, contentType: "text/plain", body: Array("no".utf8)) : nil
        }
        func bodyLimit(path: String) -> Int { 1000 }
        func respond(to request: WebRequest) -> WebResponse {
            if request.path == "/echo-busy" {
                return WebResponse(status: .tooManyRequests, contentType: "text/plain", body: Array("wait".utf8))
            }
            if request.path == "/gate" {
                entered.signal()
                gate.wait()
            }
            let text = "\(request.method.rawValue) \(request.path) q=\(request.query) body=\(request.body.count) "
                + "peer=\(request.peerAddress) secure=\(request.secure) type=\(request.headers[.contentType] ?? "-")"
            return WebResponse(status: .ok, contentType: "text/plain", body: Array(text.utf8))
        }
    }

    func start(_ app: some WebApplication, limits: WebServer.Limits = .patient) async throws -> WebServer {
        try await WebServer(folder: folder.public, host: "127.0.0.1", port: 0, logger: Logger(label: "test.http"),
                            limits: limits, application: app)
    }

    @Test func bodiesReachTheApplicationWhole() async throws {
        let web = try await start(Echo())
        let port = web.port
        let (declared, chunked, head, page) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            let body = String(repeating: "a", count: 600)
            connection.send("POST /echo?x=1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                            + "Content-Length: 600\r\n\r\n" + body)
            let declared = try connection.readResponse()
            connection.send("POST /echo2 HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + "64\r\n" + String(repeating: "b", count: 100) + "\r\n5\r\nccccc\r\n0\r\n\r\n")
            let chunked = try connection.readResponse()
            let head = try connection.request("/echo", method: "HEAD")
            // The same connection still serves the folder.
            let page = try connection.request("/alice.html")
            return (declared, chunked, head, page)
        }
        #expect(declared.status == 200)
        #expect(declared.text == "POST /echo q=x=1 body=600 peer=127.0.0.1 secure=false type=application/x-www-form-urlencoded")
        #expect(chunked.text.hasPrefix("POST /echo2 q= body=105 "))
        #expect(head.status == 200 && head.body.isEmpty && Int(head.headers["content-length"] ?? "") ?? 0 > 0)
        #expect(page.text == "<h1>alice</h1>")
        await web.stop()
    }

    @Test func aBodyOverTheLimitIsRefusedBeforeItIsRead() async throws {
        let web = try await start(Echo())
        let port = web.port
        let (declared, end, chunked) = try await offPool {
            // Declared too large: refused on the head, the body never read.
            let first = try RawHTTPConnection(port: port)
            first.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 50000000\r\n\r\n")
            let declared = try first.readResponse()
            let end = try first.readUntilEnd().end
            // Chunked past the limit: refused once it is.
            let second = try RawHTTPConnection(port: port)
            second.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in 0..<3 { second.send("190\r\n" + String(repeating: "z", count: 400) + "\r\n") }
            let chunked = try second.readResponse()
            return (declared, end, chunked)
        }
        #expect(declared.status == 413 && declared.headers["connection"] == "close")
        #expect(end == .closed || end == .reset)
        #expect(chunked.status == 413)
        await web.stop()
    }

    @Test func aClientWaitingForContinueGetsIt() async throws {
        let web = try await start(Echo())
        let port = web.port
        let (interim, final) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            connection.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let interim = try connection.readResponse(bodyExpected: false)
            connection.send("hello")
            return (interim, try connection.readResponse())
        }
        #expect(interim.status == 100)
        #expect(final.status == 200 && final.text.contains("body=5"))
        await web.stop()
    }

    /// The application's threads are its own: while one request waits
    /// there, pages are served; past its bound, `503` at once.
    @Test func aBusyApplicationHoldsNeitherPagesNorAQueue() async throws {
        let app = Echo()
        var limits = WebServer.Limits()
        limits.applicationThreads = 1
        limits.maxApplicationRequests = 1
        // The held request waits for this test's next steps, which a busy
        // machine, or a full run's queue for the blocking threads, may
        // delay by many minutes (once 13); stop() ends it.
        limits.timeout = .seconds(86_400)
        let web = try await start(app, limits: limits)
        let port = web.port
        let waiting = try await offPool { () -> RawHTTPConnection in
            let connection = try RawHTTPConnection(port: port)
            connection.send("GET /gate HTTP/1.1\r\nHost: localhost\r\n\r\n")
            return connection
        }
        try await offPool { app.entered.wait() }
        let (page, refused) = try await offPool {
            let page = try RawHTTPConnection(port: port).request("/alice.html")
            let refused = try RawHTTPConnection(port: port).request("/echo")
            return (page, refused)
        }
        #expect(page.status == 200)
        #expect(refused.status == 503 && refused.headers["retry-after"] == "1")
        app.gate.signal()
        let released = try await offPool { try waiting.readResponse() }
        #expect(released.status == 200 && released.text.hasPrefix("GET /gate"))
        await web.stop()
    }

    /// Bodies held at once are bounded per address, by the bytes that
    /// came: a second upload while the first is still coming is refused
    /// once it would pass the bound, a client that only announces a large
    /// body holds nothing, and the room comes back once the first is answered.
    @Test func bodiesHeldAtOnceAreBoundedPerAddress() async throws {
        var limits = WebServer.Limits()
        limits.maxBodyBytesPerAddress = 1500
        limits.timeout = .seconds(86_400)
        let web = try await start(Echo(), limits: limits)
        let port = web.port
        let (slow, announcer) = try await offPool { () -> (RawHTTPConnection, RawHTTPConnection) in
            let announcer = try RawHTTPConnection(port: port)
            announcer.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n")
            let slow = try RawHTTPConnection(port: port)
            slow.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "a", count: 900))
            return (slow, announcer)
        }
        // The bytes that came, not the length announced.
        #expect(try await offPool { waitUntil(timeout: 60) { web.reservedBodyBytes == 900 } })
        let (refused, first, again) = try await offPool {
            let second = try RawHTTPConnection(port: port)
            second.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "c", count: 1000))
            let refused = try second.readResponse()
            slow.send(String(repeating: "a", count: 100))
            let first = try slow.readResponse()
            let after = try RawHTTPConnection(port: port)
            after.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "b", count: 1000))
            return (refused, first, try after.readResponse())
        }
        #expect(refused.status == 503 && refused.headers["retry-after"] == "5")
        #expect(first.status == 200 && first.text.contains("body=1000"))
        #expect(again.status == 200)
        _ = announcer
        await web.stop()
    }

    /// A 429 from the application is held a moment (as the blog port holds
    /// err:BUSY), then sent, and the connection goes on.
    @Test func aTooManyRequestsAnswerArrivesAndTheConnectionGoesOn() async throws {
        let web = try await start(Echo())
        let port = web.port
        let (busy, next) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            connection.send("POST /echo-busy HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\nhi")
            let busy = try connection.readResponse()
            return (busy, try connection.request("/alice.html"))
        }
        #expect(busy.status == 429 && busy.text == "wait")
        #expect(next.status == 200)
        await web.stop()
    }

    /// An application may refuse on the head: the body is never read (the
    /// client gets its answer with the body unsent) and the connection closes.
    @Test func aRefusalOnTheHeadReadsNoBody() async throws {
        let web = try await start(Echo())
        let port = web.port
        let (refused, end) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            connection.send("POST /echo-refused HTTP/1.1\r\nHost: localhost\r\nContent-Length: 900\r\nExpect: 100-continue\r\n\r\n")
            let refused = try connection.readResponse()
            return (refused, try connection.readUntilEnd().end)
        }
        #expect(refused.status == 429 && refused.text == "no" && refused.headers["connection"] == "close")
        #expect(end == .closed || end == .reset)
        #expect(web.reservedBodyBytes == 0)
        await web.stop()
    }
}
