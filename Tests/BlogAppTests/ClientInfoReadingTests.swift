import BlogApp
import BlogCore
import BlogTestSupport
import Foundation
import Synchronization
import Testing

/// `FetchedClientInfo` against answers a test makes: what is read from a
/// hostile page (names cut, bad URLs dropped, lists bounded), what is
/// ignored (errors, other types), and the cache's bounds in entries and
/// time, on a clock moved by hand.
@Suite
struct ClientInfoReadingTests {
    /// Answers every GET with `answer(url)`, counting them.
    final class ScriptedHTTP: StubHTTP {
        let answer: @Sendable (String) -> Result<HTTPAnswer, OutgoingHTTPError>
        private let asked = Mutex<[String]>([])
        init(_ answer: @escaping @Sendable (String) -> Result<HTTPAnswer, OutgoingHTTPError>) { self.answer = answer }
        var urls: [String] { asked.withLock { $0 } }

        func get(_ url: String, headers: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
            asked.withLock { $0.append(url) }
            return try answer(url).get()
        }
    }

    final class HandClock: Sendable {
        private let seconds = Mutex(1_800_000_000.0)
        var now: Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    static func html(_ url: String, _ body: String, headers: [String: String] = [:]) -> Result<HTTPAnswer, OutgoingHTTPError> {
        .success(HTTPAnswer(url: url, status: 200, headers: ["content-type": "text/html"].merging(headers) { $1 },
                            body: Array(body.utf8)))
    }

    static func metadata(_ url: String, _ fields: [String: Any]) -> Result<HTTPAnswer, OutgoingHTTPError> {
        var object = fields
        object["client_id"] = object["client_id"] ?? url
        return .success(HTTPAnswer(url: url, status: 200, headers: ["content-type": "application/json"],
                                   body: Array(try! JSONSerialization.data(withJSONObject: object))))
    }

    func info(_ answer: @escaping @Sendable (String) -> Result<HTTPAnswer, OutgoingHTTPError>,
              _ client: String = "https://app.example/") -> ClientInfo? {
        FetchedClientInfo(http: ScriptedHTTP(answer)).clientInfo(for: ClientID(client)!)
    }

    @Test func aHostileNameIsOneBoundedLine() throws {
        let long = "Evil\u{0}\u{7}\nA\u{202E}p\u{200B}p " + String(repeating: "é", count: 500)
        let read = try #require(info { Self.metadata($0, ["client_name": long]) })
        #expect(read.name.count == 80 && read.name.hasPrefix("Evil App éé") && read.name.hasSuffix("…"))
        #expect(!read.name.unicodeScalars.contains { $0.properties.generalCategory == .control })
        let blank = try #require(info { Self.metadata($0, ["client_name": " \n\t "]) })
        #expect(blank.name == "app.example", "nothing left: the host")
    }

    @Test func onlyValidRedirectURIsAreKeptAndNotTooMany() throws {
        let many = (0..<50).map { "https://cb\($0).example/cb" }
        let read = try #require(info { url in
            let odd: [Any] = ["javascript:alert(1)", "https://frag.example/cb#x", "https://user:pw@x.example/cb", "/relative", 42]
            return Self.metadata(url, ["redirect_uris": odd + many])
        })
        #expect(read.redirectURIs == Array(many.prefix(20)))
    }

    @Test func linksInTheHeaderAndThePageAreResolved() throws {
        let answer: @Sendable (String) -> Result<HTTPAnswer, OutgoingHTTPError> = { url in
            Self.html(url, "<link rel=\"redirect_uri\" href=\"/done\"><link rel=\"stylesheet redirect_uri\" href=\"https://x.example/two\">",
                      headers: ["link": "<https://a.example/x,y>; rel=\"other redirect_uri\", <https://b.example/cb>; rel=next"])
        }
        let found = info(answer, "https://app.example/sub/page")
        let read = try #require(found)
        #expect(read.redirectURIs == ["https://a.example/x,y", "https://app.example/done", "https://x.example/two"])
        #expect(read.name == "app.example", "no h-app: named by the host")
    }

    @Test func theFirstHAppNamesTheApp() throws {
        let read = try #require(info { Self.html($0, """
            <div class="h-x-app"><span class="p-name">First</span><div class="h-card"><span class="p-name">Inner</span></div></div>
            <div class="h-app"><span class="p-name">Second</span></div>
            """) })
        #expect(read.name == "First")
    }

    @Test func errorsOtherTypesAndForeignDocumentsSayNothing() {
        #expect(info { _ in .failure(.refused("forbidden address")) } == nil)
        #expect(info { _ in .success(HTTPAnswer(url: "https://app.example/", status: 404, headers: ["content-type": "text/html"],
                                                 body: Array("<div class=\"h-app\">Nope</div>".utf8))) } == nil)
        #expect(info { _ in .success(HTTPAnswer(url: "https://app.example/", status: 200, headers: ["content-type": "image/png"],
                                                 body: [0x89, 0x50])) } == nil)
        #expect(info { Self.metadata($0, ["client_id": "https://app.example/other", "client_name": "Spoof"]) } == nil)
        #expect(info { _ in .success(HTTPAnswer(url: "https://app.example/", status: 200, headers: ["content-type": "application/json"],
                                                 body: Array("{not json".utf8))) } == nil)
    }

    @Test func theCacheIsBoundedInEntriesAndTime() {
        let clock = HandClock()
        let http = ScriptedHTTP { url in
            url.hasSuffix("/down") ? .failure(.failed("timed out")) : Self.metadata(url, ["client_name": "App"])
        }
        let source = FetchedClientInfo(http: http, settings: .init(lifetime: 300, failureLifetime: 60, capacity: 2),
                                       now: { clock.now })
        let a = ClientID("https://a.example/")!, b = ClientID("https://b.example/")!, c = ClientID("https://c.example/")!
        _ = source.clientInfo(for: a)
        clock.advance(1)
        #expect(source.clientInfo(for: a)?.name == "App")
        #expect(http.urls.count == 1, "a reload is answered from the cache")
        _ = source.clientInfo(for: b)
        clock.advance(1)
        _ = source.clientInfo(for: c)
        #expect(source.cachedCount == 2, "never more than the capacity")
        _ = source.clientInfo(for: a)
        #expect(http.urls.count == 4, "the oldest made room")
        clock.advance(301)
        _ = source.clientInfo(for: c)
        #expect(http.urls.count == 5, "an expired answer is fetched again")

        let down = ClientID("https://d.example/down")!
        #expect(source.clientInfo(for: down) == nil)
        #expect(source.clientInfo(for: down) == nil)
        #expect(http.urls.count == 6, "a failure is remembered too")
        clock.advance(61)
        _ = source.clientInfo(for: down)
        #expect(http.urls.count == 7, "and tried again a minute later")
    }

    /// Past `concurrency` fetches under way, the page does not wait for
    /// another: the app is named by its host, and nothing is remembered.
    /// The slow fetch waits on a thread of its own, not a task: with the
    /// cooperative pool's threads (one a core) blocked by other tests, a
    /// task might never start.
    @Test func fetchesUnderWayAreBounded() throws {
        let release = DispatchSemaphore(value: 0)
        let http = ScriptedHTTP { url in
            if url.contains("slow") { release.wait() }
            return Self.metadata(url, ["client_name": "App"])
        }
        let source = FetchedClientInfo(http: http, settings: .init(concurrency: 1))
        let slowName = Mutex<String?>(nil)
        let slowDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let name = source.clientInfo(for: ClientID("https://slow.example/")!)?.name
            slowName.withLock { $0 = name }
            slowDone.signal()
        }
        #expect(waitUntil(timeout: 120) { http.urls.count == 1 })
        #expect(source.clientInfo(for: ClientID("https://other.example/")!) == nil)
        #expect(http.urls.count == 1, "not fetched")
        release.signal()
        slowDone.wait()
        #expect(slowName.withLock { $0 } == "App")
        #expect(source.clientInfo(for: ClientID("https://other.example/")!)?.name == "App", "fetched once there is room")
    }
}
