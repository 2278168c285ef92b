import BlogApp
import BlogAuth
import BlogModel
@testable import BlogWeb
import Foundation
import Testing

/// What IndieAuth refuses, over real sockets: a wrong verifier, a reused
/// code (whose token is then revoked), a foreign redirect URI (a page,
/// never a redirect), an expired code (the blog's clock moved by hand),
/// a request without PKCE or with `plain`; each refusal an OAuth error
/// that changes nothing, and a flood of bad codes stopped by the
/// address's budget.
@Suite(.serialized)
struct IndieAuthRefusalTests {
    typealias Flow = IndieAuthFlowTests
    static let authorization = IndieAuthFixture.base + "app/auth"
    static let tokenEndpoint = IndieAuthFixture.base + "indieauth/token"

    /// A signed-in browser and an app, and a fresh code of `scopes` with its verifier.
    static func code(_ fixture: IndieAuthFixture, _ browser: LoopbackHTTP,
                     scopes: [String] = ["create"]) async throws -> (code: String, verifier: String) {
        let (verifier, challenge) = Flow.pkce()
        let location = try await Flow.approve(browser, Flow.authorizationURL(authorization, challenge: challenge), scopes: scopes)
        return (try #require(Flow.query(location)["code"]), verifier)
    }

    static func redeem(_ app: LoopbackHTTP, _ code: String, verifier: String, at endpoint: String = tokenEndpoint,
                       clientID: String = IndieAuthFixture.app,
                       redirect: String = IndieAuthFixture.callback) async throws -> WireResponse {
        try await app.post(endpoint, [("grant_type", "authorization_code"), ("code", code), ("client_id", clientID),
                                      ("redirect_uri", redirect), ("code_verifier", verifier)])
    }

    static func error(_ response: WireResponse) throws -> String? {
        #expect(response.headers["content-type"] == "application/json")
        return try Flow.json(response)["error"] as? String
    }

    func bearerCount(_ fixture: IndieAuthFixture) throws -> Int {
        let alice = try #require(try fixture.blog.store.user(named: "alice"))
        return try fixture.tokens.list(ofUserID: alice.id).filter { $0.kind == .bearer }.count
    }

    /// A wrong verifier, another client or redirect URI: invalid_grant, and
    /// the code still works for the app that holds the right ones.
    @Test func aWrongVerifierIsRefusedAndChangesNothing() async throws {
        let fixture = try IndieAuthFixture()
        let web = try await fixture.start()
        let app = LoopbackHTTP(port: web.port, browser: false)
        let browser = LoopbackHTTP(port: web.port, browser: true)
        let (code, verifier) = try await Self.code(fixture, browser)
        let wrong = try await Self.redeem(app, code, verifier: Flow.pkce().verifier)
        #expect(try wrong.status == 400 && Self.error(wrong) == "invalid_grant")
        let otherClient = try await Self.redeem(app, code, verifier: verifier, clientID: "https://other.example/")
        #expect(try otherClient.status == 400 && Self.error(otherClient) == "invalid_grant")
        let otherRedirect = try await Self.redeem(app, code, verifier: verifier, redirect: IndieAuthFixture.app + "other")
        #expect(try otherRedirect.status == 400 && Self.error(otherRedirect) == "invalid_grant")
        let missing = try await app.post(Self.tokenEndpoint, [("grant_type", "authorization_code"), ("code", code),
                                                              ("client_id", IndieAuthFixture.app),
                                                              ("redirect_uri", IndieAuthFixture.callback)])
        #expect(try missing.status == 400 && Self.error(missing) == "invalid_request", "no verifier: PKCE is required")
        let password = try await app.post(Self.tokenEndpoint, [("grant_type", "password"), ("username", "alice")])
        #expect(try Self.error(password) == "unsupported_grant_type")
        #expect(try bearerCount(fixture) == 0)
        let right = try await Self.redeem(app, code, verifier: verifier)
        #expect(right.status == 200, "\(right.text)")
        #expect(try bearerCount(fixture) == 1)
        await web.stop()
    }

    /// A code works once; its second use is refused and revokes the token
    /// the first use got (RFC 6749 section 4.1.2).
    @Test func aReusedCodeIsRefusedAndItsTokenRevoked() async throws {
        let fixture = try IndieAuthFixture()
        let web = try await fixture.start()
        let app = LoopbackHTTP(port: web.port, browser: false)
        let browser = LoopbackHTTP(port: web.port, browser: true)
        let (code, verifier) = try await Self.code(fixture, browser)
        let first = try await Self.redeem(app, code, verifier: verifier)
        #expect(first.status == 200)
        let token = try #require(try Flow.json(first)["access_token"] as? String)
        let second = try await Self.redeem(app, code, verifier: verifier)
        #expect(try second.status == 400 && Self.error(second) == "invalid_grant")
        #expect(try bearerCount(fixture) == 0, "the token the code got is revoked")
        let posted = try await app.post(IndieAuthFixture.base + "micropub", [("h", "entry"), ("content", "x")],
                                        headers: ["Authorization": "Bearer \(token)"])
        #expect(posted.status == 403, "Micropub: a token it does not know is forbidden")
        // At the authorization endpoint too, a used code is refused.
        let atAuthorization = try await Self.redeem(app, code, verifier: verifier, at: Self.authorization)
        #expect(try atAuthorization.status == 400 && Self.error(atAuthorization) == "invalid_grant")
        await web.stop()
    }

    /// A code waits a minute at most, on the blog's clock.
    @Test func anExpiredCodeIsRefused() async throws {
        let fixture = try IndieAuthFixture()
        let web = try await fixture.start()
        let app = LoopbackHTTP(port: web.port, browser: false)
        let browser = LoopbackHTTP(port: web.port, browser: true)
        let (code, verifier) = try await Self.code(fixture, browser)
        fixture.advance(by: 61)
        let late = try await Self.redeem(app, code, verifier: verifier)
        #expect(try late.status == 400 && Self.error(late) == "invalid_grant")
        #expect(try Flow.json(late)["error_description"] as? String == "The code has expired.")
        #expect(try bearerCount(fixture) == 0)
        // Within the minute, one works.
        let (fresh, freshVerifier) = try await Self.code(fixture, browser)
        fixture.advance(by: 59)
        #expect(try await Self.redeem(app, fresh, verifier: freshVerifier).status == 200)
        await web.stop()
    }

    /// A redirect URI off the client's origin gets a page that says so and
    /// sends nowhere; so do a bad client id and a URI with a fragment.
    @Test func aForeignRedirectURIGetsAPageNotARedirect() async throws {
        let fixture = try IndieAuthFixture()
        let web = try await fixture.start()
        let browser = LoopbackHTTP(port: web.port, browser: true)
        let challenge = Flow.pkce().challenge
        for redirect in ["https://evil.example/callback", "http://app.example/callback", "https://app.example:8443/callback",
                         "https://app.example/callback#x", "https://user:pw@app.example/callback", "javascript:alert(1)"] {
            let page = try await browser.get(Flow.authorizationURL(Self.authorization, challenge: challenge, redirect: redirect))
            #expect(page.status == 400 && page.headers["location"] == nil, "\(redirect)")
        }
        for client in ["https://app.example", "https://10.0.0.1/", "https://app.example/../x", "ftp://app.example/",
                       "https://app.example/#f"] {
            let url = Self.authorization + "?response_type=code&client_id=\(LoopbackHTTP.encode(client))&redirect_uri="
                + LoopbackHTTP.encode(IndieAuthFixture.callback) + "&state=s&code_challenge=\(challenge)&code_challenge_method=S256"
            let page = try await browser.get(url)
            #expect(page.status == 400 && page.headers["location"] == nil, "\(client)")
        }
        // Signed in, the approval form is checked again: a redirect URI
        // edited into it is refused the same way.
        let (_, good) = Flow.pkce()
        _ = try await Flow.approve(browser, Flow.authorizationURL(Self.authorization, challenge: good), scopes: [], decision: "deny")
        let page = try await browser.get(Flow.authorizationURL(Self.authorization, challenge: good))
        let forged = try await browser.post("/app/auth/approve", [
            ("csrf", Flow.field("csrf", in: page.text) ?? ""), ("response_type", "code"), ("client_id", IndieAuthFixture.app),
            ("redirect_uri", "https://evil.example/steal"), ("state", "s"), ("code_challenge", good),
            ("code_challenge_method", "S256"), ("scope", "create"), ("decision", "approve")])
        #expect(forged.status == 400 && forged.headers["location"] == nil)
        await web.stop()
    }

    /// PKCE is required, S256 only: the app is sent back with
    /// invalid_request and no code.
    @Test func noPKCEOrPlainIsSentBackWithAnError() async throws {
        let fixture = try IndieAuthFixture()
        let web = try await fixture.start()
        let browser = LoopbackHTTP(port: web.port, browser: true)
        let (verifier, challenge) = Flow.pkce()
        let cases = [Flow.authorizationURL(Self.authorization, challenge: challenge, method: nil),
                     Flow.authorizationURL(Self.authorization, challenge: verifier, method: "plain"),
                     Flow.authorizationURL(Self.authorization, challenge: "", method: "S256")]
        for url in cases {
            let answer = try await browser.get(url)
            #expect(answer.status == 303, "\(url)")
            let location = try #require(answer.headers["location"])
            let fields = Flow.query(location)
            #expect(location.hasPrefix(IndieAuthFixture.callback + "?") && fields["error"] == "invalid_request")
            #expect(fields["code"] == nil && fields["state"] == "st-42" && fields["iss"] == IndieAuthFixture.base)
        }
        // Denied: access_denied, no code.
        let denied = try await Flow.approve(browser, Flow.authorizationURL(Self.authorization, challenge: challenge),
                                            scopes: ["create"], decision: "deny")
        #expect(Flow.query(denied)["error"] == "access_denied" && Flow.query(denied)["code"] == nil)
        await web.stop()
    }

    /// A code granted only profile: the token endpoint issues no token for
    /// no scope, but the authorization endpoint tells who signed in.
    @Test func aProfileOnlyCodeIsRedeemedAtTheAuthorizationEndpoint() async throws {
        let fixture = try IndieAuthFixture()
        let web = try await fixture.start()
        let app = LoopbackHTTP(port: web.port, browser: false)
        let browser = LoopbackHTTP(port: web.port, browser: true)
        let (empty, emptyVerifier) = try await Self.code(fixture, browser, scopes: [])
        let none = try await Self.redeem(app, empty, verifier: emptyVerifier)
        #expect(try none.status == 400 && Self.error(none) == "invalid_grant")
        let (code, verifier) = try await Self.code(fixture, browser, scopes: ["profile"])
        let answer = try await Self.redeem(app, code, verifier: verifier, at: Self.authorization)
        #expect(answer.status == 200, "\(answer.text)")
        let identity = try Flow.json(answer)
        #expect(identity["me"] as? String == IndieAuthFixture.base + "alice.html" && identity["access_token"] == nil)
        #expect((identity["profile"] as? [String: String])?["name"] == "alice")
        #expect(try bearerCount(fixture) == 0)
        await web.stop()
    }

    /// Bad codes burn the address's budget: after it, even a good code
    /// waits (429, OAuth JSON, Retry-After), and another address is not held up.
    @Test func badCodesSpendTheAddressBudget() async throws {
        let budgetClock = FixedDate()
        let fixture = try IndieAuthFixture(budget: IndieAuthBudget(perMinute: 10, burst: 10, failureCost: 5,
                                                                   now: { budgetClock.date }))
        let web = try await fixture.start()
        let app = LoopbackHTTP(port: web.port, browser: false)
        let bogus = String(repeating: "A", count: 43)
        let (_, verifier) = Flow.pkce()
        var statuses: [Int] = []
        for _ in 0..<4 { statuses.append(try await Self.redeem(app, bogus, verifier: verifier).status) }
        #expect(statuses == [400, 400, 429, 429], "two refusals cost 1 + 5 each: the budget of 10 is spent")
        let refused = try await Self.redeem(app, bogus, verifier: verifier)
        #expect(try refused.headers["retry-after"] != nil && Self.error(refused) == "temporarily_unavailable")
        #expect(fixture.budget.tokenRequestsAvailable(for: "203.0.113.9") == 10, "another address keeps its budget")
        budgetClock.date += 120
        #expect(try await Self.redeem(app, bogus, verifier: verifier).status == 400, "refilled with time")
        await web.stop()
    }
}

/// A date a test moves by hand.
final class FixedDate: @unchecked Sendable {
    private let lock = NSLock()
    private var value = Date(timeIntervalSince1970: 1_800_000_000)
    var date: Date {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// The authorization page's own budget, and the endpoints' body bound.
@Suite(.serialized)
struct IndieAuthLimitTests {
    typealias Flow = IndieAuthFlowTests

    /// Authorization attempts from one address stop at its budget, with a
    /// page and `Retry-After`; the token endpoint's budget is apart.
    @Test func authorizationAttemptsSpendTheAddressBudget() async throws {
        let budgetClock = FixedDate()
        let fixture = try IndieAuthFixture(budget: IndieAuthBudget(perMinute: 3, burst: 3, now: { budgetClock.date }))
        let web = try await fixture.start()
        let browser = LoopbackHTTP(port: web.port, browser: true)
        let url = Flow.authorizationURL(IndieAuthRefusalTests.authorization, challenge: Flow.pkce().challenge)
        var statuses: [Int] = []
        for _ in 0..<4 { statuses.append(try await browser.get(url).status) }
        #expect(statuses == [303, 303, 303, 429])
        let refused = try await browser.get(url)
        #expect(refused.headers["retry-after"] != nil && refused.headers["location"] == nil)
        #expect(fixture.budget.tokenRequestsAvailable(for: "127.0.0.1") == 3)
        await web.stop()
    }

    /// A body over 8 KiB is refused on its head, as an OAuth error.
    @Test func aLargeBodyIsRefusedAsAnOAuthError() async throws {
        let fixture = try IndieAuthFixture()
        let web = try await fixture.start()
        let port = web.port
        for path in ["/indieauth/token", "/indieauth/revoke", "/indieauth/introspect"] {
            let response = try await onThread {
                let connection = try WireHTTP(port: port)
                connection.send("POST \(path) HTTP/1.1\r\nHost: blog.example\r\n"
                                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 9000\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(response.status == 413, "\(path)")
            #expect(response.headers["content-type"] == "application/json")
            #expect(try Flow.json(response)["error"] as? String == "invalid_request")
        }
        await web.stop()
    }
}
