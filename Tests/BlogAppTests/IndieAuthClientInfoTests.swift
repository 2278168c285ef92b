import BlogApp
import BlogCore
import BlogFetch
import BlogModel
import BlogTestSupport
import BlogWire
@testable import BlogWeb
import Foundation
import Synchronization
import Testing

/// The authorization page's view of the app, from its client_id fetched
/// over real loopback sockets by the real bounded fetcher: a JSON client
/// metadata document and an h-app page name the app (shown escaped) and
/// publish redirect URIs on other origins; a private address with the
/// setting off, a huge page and a slow one all leave the page at the
/// host; the address's budget is spent before any fetch.
@Suite(.serialized)
struct IndieAuthClientInfoTests {
    typealias Flow = IndieAuthFlowTests
    static let authorization = IndieAuthFixture.base + "app/auth"

    /// A fixture whose client ids are fetched with `fetch` bounds.
    static func fixture(_ fetch: FetchSettings = FetchSettings(timeLimit: .seconds(600), allowPrivateAddresses: true),
                        info: FetchedClientInfo.Settings = .init(wait: 120),
                        expiry: ExpiryGate? = nil, budget: IndieAuthBudget? = nil) throws -> IndieAuthFixture {
        let fetcher = expiry.map { OutgoingFetcher(settings: fetch, expiry: $0.wait) } ?? OutgoingFetcher(settings: fetch)
        return try IndieAuthFixture(budget: budget, clients: FetchedClientInfo(http: FetcherHTTP(fetcher), settings: info))
    }

    static func url(client: String, redirect: String, challenge: String = Flow.pkce().challenge,
                    scope: String = "create profile") -> String {
        let fields = [("response_type", "code"), ("client_id", client), ("redirect_uri", redirect), ("state", "st-1"),
                      ("code_challenge", challenge), ("code_challenge_method", "S256"), ("scope", scope)]
        return authorization + "?" + fields.map { "\($0.0)=\(LoopbackHTTP.encode($0.1))" }.joined(separator: "&")
    }

    /// Alice, signed in.
    static func signIn(_ browser: LoopbackHTTP) async throws {
        let form = try await browser.get("/app/login")
        let signedIn = try await browser.post("/app/login", [("csrf", Flow.field("csrf", in: form.text) ?? ""),
                                                             ("name", "alice"), ("password", "alice-pw")])
        #expect(signedIn.status == 303, "\(signedIn.text)")
    }

    /// The app's name as the page shows it (markup escaped, as sent).
    static func shownName(_ page: String) -> String? {
        guard let start = page.range(of: "<strong id=\"app-name\">") else { return nil }
        return String(page[start.upperBound...].prefix { $0 != "<" })
    }

    static func json(_ object: [String: Any]) -> HTTPStubServer.Response {
        HTTPStubServer.Response(status: 200, headers: [("Content-Type", "application/json")],
                                body: Array(try! JSONSerialization.data(withJSONObject: object)))
    }

    @Test func aMetadataDocumentNamesTheAppAndPublishesRedirects() async throws {
        let stub = try HTTPStubServer { request in
            let me = "http://127.0.0.1:\(request.headers["host"]?.split(separator: ":").last ?? "")"
            switch request.path {
            case "/app": return Self.json(["client_id": me + "/app", "client_name": "<b>Quill</b> & co",
                                           "redirect_uris": ["https://elsewhere.example/cb"]])
            // Another app's document proves nothing about this one.
            case "/other": return Self.json(["client_id": "https://evil.example/", "client_name": "Trusted Bank",
                                             "redirect_uris": ["https://evil.example/cb"]])
            default: return .init(status: 404)
            }
        }
        defer { stub.stop() }
        let fixture = try Self.fixture()
        let web = try await fixture.start()
        let browser = LoopbackHTTP(port: web.port, browser: true)
        try await Self.signIn(browser)

        let app = stub.url("/app")
        let page = try await browser.get(Self.url(client: app, redirect: "https://elsewhere.example/cb"))
        #expect(page.status == 200, "\(page.text)")
        #expect(Self.shownName(page.text) == "&lt;b&gt;Quill&lt;/b&gt; &amp; co")
        #expect(!page.text.contains("<b>Quill"))
        #expect(page.headers["content-security-policy"]?.contains("form-action 'self' https://elsewhere.example;") == true)
        #expect(stub.requests.first?.headers["accept"]?.contains("application/json") == true)
        // Not published, on another origin: refused, with a page.
        let foreign = try await browser.get(Self.url(client: app, redirect: "https://not-published.example/cb"))
        #expect(foreign.status == 400 && foreign.headers["location"] == nil)
        // Its own origin needs no publishing.
        let own = try await browser.get(Self.url(client: app, redirect: stub.url("/callback")))
        #expect(own.status == 200)
        #expect(stub.requests.count == 1, "the answer is cached: reloads do not fetch again")

        let other = stub.url("/other")
        let spoof = try await browser.get(Self.url(client: other, redirect: stub.url("/cb")))
        #expect(spoof.status == 200 && Self.shownName(spoof.text) == "127.0.0.1", "a document for another client_id is ignored")
        let stolen = try await browser.get(Self.url(client: other, redirect: "https://evil.example/cb"))
        #expect(stolen.status == 400)
        await web.stop()
    }

    @Test func anHAppPageNamesTheAppWithoutItsLogo() async throws {
        let stub = try HTTPStubServer { request in
            .html("""
                <!DOCTYPE html><html><head><link rel="redirect_uri" href="https://page.example/done">
                <title>x</title></head><body>
                <div class="h-app"><img class="u-logo" src="https://tracker.example/logo.png">
                <a class="u-url p-name" href="/">Notes &lt;&amp;&gt;\n  Co<script>alert(1)</script></a></div>
                </body></html>
                """, headers: [("Link", "<https://header.example/cb>; rel=\"redirect_uri\", </x>; rel=\"other\"")])
        }
        defer { stub.stop() }
        let fixture = try Self.fixture()
        let web = try await fixture.start()
        let browser = LoopbackHTTP(port: web.port, browser: true)
        try await Self.signIn(browser)

        let app = stub.url("/")
        for redirect in ["https://page.example/done", "https://header.example/cb"] {
            let page = try await browser.get(Self.url(client: app, redirect: redirect))
            #expect(page.status == 200, "\(redirect): \(page.text)")
            #expect(Self.shownName(page.text) == "Notes &lt;&amp;&gt; Co")
            #expect(!page.text.contains("tracker.example"), "no logo from the app's site is loaded")
        }
        let other = try await browser.get(Self.url(client: app, redirect: stub.url("/x").replacingOccurrences(of: "127.0.0.1", with: "localhost")))
        #expect(other.status == 400, "another origin not published")
        #expect(stub.requests.count == 1)
        await web.stop()
    }

    @Test func aPrivateClientIDIsNotFetchedWhenTheSettingIsOff() async throws {
        let stub = try HTTPStubServer { _ in Self.json(["client_id": "x", "client_name": "Never seen"]) }
        defer { stub.stop() }
        let fixture = try Self.fixture(FetchSettings(allowPrivateAddresses: false))
        let web = try await fixture.start()
        let browser = LoopbackHTTP(port: web.port, browser: true)
        try await Self.signIn(browser)
        let page = try await browser.get(Self.url(client: stub.url("/app"), redirect: stub.url("/cb")))
        #expect(page.status == 200, "the page still works")
        #expect(Self.shownName(page.text) == "127.0.0.1")
        #expect(stub.requests.isEmpty, "a loopback client_id is never connected to")
        await web.stop()
    }

    @Test func aHugePageFallsBackToTheHost() async throws {
        let stub = try HTTPStubServer { request in
            let me = "http://127.0.0.1:\(request.headers["host"]?.split(separator: ":").last ?? "")/app"
            return Self.json(["client_id": me, "client_name": "Huge", "padding": String(repeating: "x", count: 200_000)])
        }
        defer { stub.stop() }
        let fixture = try Self.fixture(FetchSettings(maxBytes: 16 * 1024, allowPrivateAddresses: true),
                                       info: .init(maxBytes: 16 * 1024, wait: 120))
        let web = try await fixture.start()
        let browser = LoopbackHTTP(port: web.port, browser: true)
        try await Self.signIn(browser)
        let page = try await browser.get(Self.url(client: stub.url("/app"), redirect: stub.url("/cb")))
        #expect(page.status == 200)
        #expect(Self.shownName(page.text) == "127.0.0.1")
        #expect(stub.requests.count == 1, "fetched, and cut off")
        await web.stop()
    }

    @Test func aSlowPageFallsBackToTheHost() async throws {
        let release = DispatchSemaphore(value: 0)
        let stub = try HTTPStubServer { request in
            release.wait()
            return Self.json(["client_id": "unused", "client_name": "Slow"])
        }
        let gate = ExpiryGate()
        let fixture = try Self.fixture(FetchSettings(timeLimit: .seconds(600), allowPrivateAddresses: true),
                                       info: .init(wait: 600), expiry: gate)
        let web = try await fixture.start()
        let browser = LoopbackHTTP(port: web.port, browser: true)
        try await Self.signIn(browser)
        let url = Self.url(client: stub.url("/app"), redirect: stub.url("/cb"))
        let pending = Task { try await browser.get(url) }
        // The client's server has the request and sits on it: time is up.
        // (Polled with Task.sleep, not a blocking wait, so that this test
        // holds none of the cooperative threads the request's task needs.)
        var polls = 0
        while stub.requests.count < 1 && polls < 12_000 {
            try await Task.sleep(for: .milliseconds(10))
            polls += 1
        }
        #expect(stub.requests.count == 1)
        gate.expire()
        let page = try await pending.value
        #expect(page.status == 200)
        #expect(Self.shownName(page.text) == "127.0.0.1")
        release.signal()
        stub.stop()
        await web.stop()
    }

    /// An address out of authorization attempts makes blogd fetch nothing,
    /// signed in or not.
    @Test func theBudgetIsSpentBeforeTheFetch() async throws {
        let stub = try HTTPStubServer { _ in .html("<div class=\"h-app p-name\">App</div>") }
        defer { stub.stop() }
        let clock = ManualTime()
        let fixture = try Self.fixture(budget: IndieAuthBudget(perMinute: 1, burst: 1, now: { clock.now }))
        let web = try await fixture.start()
        let anonymous = LoopbackHTTP(port: web.port, browser: true)
        let first = try await anonymous.get(Self.url(client: stub.url("/one"), redirect: stub.url("/cb")))
        #expect(first.status == 303, "to the login form, once the app is known")
        #expect(stub.requests.map(\.path) == ["/one"])
        for path in ["/two", "/three"] {
            let refused = try await anonymous.get(Self.url(client: stub.url(path), redirect: stub.url("/cb")))
            #expect(refused.status == 429 && refused.headers["retry-after"] != nil)
        }
        #expect(stub.requests.map(\.path) == ["/one"], "no fetch once the budget is spent")
        await web.stop()
    }

    /// The token's profile: the display name and the photo from the blog
    /// settings, the photo absolute; the token labelled with the app's name.
    @Test func theTokenCarriesTheProfileAndTheAppsName() async throws {
        let stub = try HTTPStubServer { request in
            let me = "http://127.0.0.1:\(request.headers["host"]?.split(separator: ":").last ?? "")/app"
            return Self.json(["client_id": me, "client_name": "Quill"])
        }
        defer { stub.stop() }
        let fixture = try Self.fixture()
        try fixture.blog.service.setBlogSettings(try BlogSettings(authorName: "Alice Example", authorPhoto: "photos/alice.jpg"),
                                                 of: "alice")
        let web = try await fixture.start()
        let browser = LoopbackHTTP(port: web.port, browser: true)
        let app = LoopbackHTTP(port: web.port, browser: false)
        try await Self.signIn(browser)
        let client = stub.url("/app"), redirect = stub.url("/cb")
        let (verifier, challenge) = Flow.pkce()
        let page = try await browser.get(Self.url(client: client, redirect: redirect, challenge: challenge))
        #expect(page.status == 200 && Self.shownName(page.text) == "Quill")
        var form: [(String, String)] = [("csrf", Flow.field("csrf", in: page.text) ?? "")]
        for name in ["response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method", "me"] {
            form.append((name, try #require(Flow.field(name, in: page.text))))
        }
        form += [("scope", "create"), ("scope", "profile"), ("decision", "approve")]
        let approved = try await browser.post("/app/auth/approve", form)
        let location = try #require(approved.headers["location"])
        let code = try #require(Flow.query(location)["code"])
        let answer = try await app.post(IndieAuthFixture.base + "indieauth/token", [
            ("grant_type", "authorization_code"), ("code", code), ("client_id", client), ("redirect_uri", redirect),
            ("code_verifier", verifier)])
        #expect(answer.status == 200, "\(answer.text)")
        let profile = try #require(try Flow.json(answer)["profile"] as? [String: String])
        #expect(profile == ["name": "Alice Example", "url": IndieAuthFixture.base + "alice.html",
                            "photo": IndieAuthFixture.base + "photos/alice.jpg"])
        let alice = try #require(try fixture.blog.store.user(named: "alice"))
        let labels = try fixture.tokens.list(ofUserID: alice.id).filter { $0.kind == .bearer }.map(\.label)
        #expect(labels == ["Quill (\(client))"])
        #expect(stub.requests.count == 1, "the page, the approval and the token share one fetch")
        await web.stop()
    }
}

/// A settable clock for the budget.
final class ManualTime: Sendable {
    private let seconds = Mutex(1_800_000_000.0)
    var now: Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
}
