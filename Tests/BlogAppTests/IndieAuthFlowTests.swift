import BlogApp
import BlogAuth
import BlogModel
@testable import BlogWeb
import Crypto
import Foundation
import Testing

/// IndieAuth as a Micropub app drives it, over real sockets against the
/// real page server: discovery from the blog's page, the authorization
/// page (the login form first, then back), approval with the page's CSRF
/// token, the code for a token with PKCE, a Micropub post with the token,
/// introspection, revocation, and the token refused after it.
@Suite(.serialized)
struct IndieAuthFlowTests {
    /// A PKCE pair: a verifier and its S256 challenge.
    static func pkce() -> (verifier: String, challenge: String) {
        let verifier = (0..<64).map { _ in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~".randomElement()! }
        let text = String(verifier)
        let challenge = Data(SHA256.hash(data: Array(text.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return (text, challenge)
    }

    static func json(_ response: WireResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "\(response.text)")
    }

    /// The href of `<link rel="REL" href="…">` in a page.
    static func link(_ rel: String, in page: String) -> String? {
        guard let start = page.range(of: "<link rel=\"\(rel)\" href=\"") else { return nil }
        return String(page[start.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The query fields of a URL.
    static func query(_ url: String) -> [String: String] {
        var fields: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] { fields[item.name] = item.value ?? "" }
        return fields
    }

    /// The value of a hidden or named input on a page.
    static func field(_ name: String, in page: String) -> String? {
        guard let start = page.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(page[start.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }

    static func authorizationURL(_ endpoint: String, challenge: String, method: String? = "S256", state: String = "st-42",
                                 redirect: String = IndieAuthFixture.callback, scope: String = "create media profile") -> String {
        var fields = [("response_type", "code"), ("client_id", IndieAuthFixture.app), ("redirect_uri", redirect),
                      ("state", state), ("code_challenge", challenge), ("scope", scope),
                      ("me", IndieAuthFixture.base + "alice.html")]
        if let method { fields.append(("code_challenge_method", method)) }
        return endpoint + "?" + fields.map { "\($0.0)=\(LoopbackHTTP.encode($0.1))" }.joined(separator: "&")
    }

    /// Signs alice in through the login form the authorization page sends
    /// her to, approves with `scopes` ticked, and returns the redirect to
    /// the app (the code in its query).
    static func approve(_ browser: LoopbackHTTP, _ authorizationURL: String, scopes: [String],
                        decision: String = "approve") async throws -> String {
        var page = try await browser.get(authorizationURL)
        if page.status == 303, let login = page.headers["location"], login.hasPrefix("/app/login") {
            let form = try await browser.get(login)
            #expect(form.status == 200)
            let next = try #require(field("next", in: form.text), "the login form keeps where to go back")
            let signedIn = try await browser.post("/app/login", [("csrf", field("csrf", in: form.text) ?? ""), ("name", "alice"),
                                                                 ("password", "alice-pw"), ("next", next)])
            #expect(signedIn.status == 303)
            let back = try #require(signedIn.headers["location"])
            #expect(back == LoopbackHTTP.target(authorizationURL), "back to the app's request, as it was")
            page = try await browser.get(back)
        }
        #expect(page.status == 200, "\(page.text)")
        // The form ends in a redirect to the app: its origin joins 'self'.
        #expect(page.headers["content-security-policy"]?.contains("form-action 'self' https://app.example;") == true)
        let text = page.text
        var form: [(String, String)] = [("csrf", field("csrf", in: text) ?? "")]
        for name in ["response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method", "me"] {
            form.append((name, try #require(field(name, in: text), "\(name) on the page")))
        }
        form += scopes.map { ("scope", $0) }
        form.append(("decision", decision))
        let answer = try await browser.post("/app/auth/approve", form)
        #expect(answer.status == 303, "\(answer.text)")
        return try #require(answer.headers["location"])
    }

    @Test func anAppSignsInPostsAndIsRevoked() async throws {
        let fixture = try IndieAuthFixture()
        let web = try await fixture.start()
        let app = LoopbackHTTP(port: web.port, browser: false)
        let browser = LoopbackHTTP(port: web.port, browser: true)

        // Discovery: the user types the blog's address into the app.
        let me = IndieAuthFixture.base + "alice.html"
        let profile = try await app.get(me)
        #expect(profile.status == 200)
        // Root-relative links, resolved against the page as an app does.
        let metadataLink = try #require(Self.link("indieauth-metadata", in: profile.text))
        let metadataURL = try #require(URL(string: metadataLink, relativeTo: URL(string: me))).absoluteString
        #expect(metadataURL == IndieAuthFixture.base + ".well-known/oauth-authorization-server")
        #expect(Self.link("authorization_endpoint", in: profile.text) == "/app/auth")
        #expect(Self.link("token_endpoint", in: profile.text) == "/indieauth/token")
        #expect(Self.link("micropub", in: profile.text) != nil)
        let metadataResponse = try await app.get(metadataURL)
        #expect(metadataResponse.status == 200 && metadataResponse.headers["content-type"] == "application/json")
        let metadata = try Self.json(metadataResponse)
        let issuer = try #require(metadata["issuer"] as? String)
        #expect(metadata["authorization_endpoint"] as? String == IndieAuthFixture.base + "app/auth")
        #expect(issuer == IndieAuthFixture.base && metadataURL.hasPrefix(issuer), "the issuer prefixes the metadata URL")
        #expect(metadata["code_challenge_methods_supported"] as? [String] == ["S256"])
        #expect(metadata["response_types_supported"] as? [String] == ["code"])
        #expect(metadata["authorization_response_iss_parameter_supported"] as? Bool == true)
        #expect(metadata["scopes_supported"] as? [String] == ["create", "update", "delete", "media", "profile"])
        let authorizationEndpoint = try #require(metadata["authorization_endpoint"] as? String)
        let tokenEndpoint = try #require(metadata["token_endpoint"] as? String)
        let revocationEndpoint = try #require(metadata["revocation_endpoint"] as? String)
        let introspectionEndpoint = try #require(metadata["introspection_endpoint"] as? String)

        // Authorization: alice logs in, sees the app, unticks media, approves.
        let (verifier, challenge) = Self.pkce()
        let url = Self.authorizationURL(authorizationEndpoint, challenge: challenge)
        let first = try await browser.get(url)
        #expect(first.status == 303 && first.headers["location"]?.hasPrefix("/app/login?next=") == true)
        let location = try await Self.approve(browser, url, scopes: ["create", "profile"])
        #expect(location.hasPrefix(IndieAuthFixture.callback + "?"))
        let answer = Self.query(location)
        #expect(answer["state"] == "st-42" && answer["iss"] == issuer)
        let code = try #require(answer["code"])

        // The code for a token.
        let tokenResponse = try await app.post(tokenEndpoint, [
            ("grant_type", "authorization_code"), ("code", code), ("client_id", IndieAuthFixture.app),
            ("redirect_uri", IndieAuthFixture.callback), ("code_verifier", verifier)])
        #expect(tokenResponse.status == 200, "\(tokenResponse.text)")
        #expect(tokenResponse.headers["cache-control"] == "no-store")
        let token = try Self.json(tokenResponse)
        let accessToken = try #require(token["access_token"] as? String)
        #expect(token["token_type"] as? String == "Bearer")
        #expect(token["scope"] as? String == "create profile")
        #expect(token["me"] as? String == me)
        let shown = try #require(token["profile"] as? [String: String])
        #expect(shown["name"] == "alice" && shown["url"] == me)

        // It is one of alice's tokens, labelled with the app.
        let alice = try #require(try fixture.blog.store.user(named: "alice"))
        let listed = try fixture.tokens.list(ofUserID: alice.id).filter { $0.kind == .bearer }
        #expect(listed.map(\.label) == [IndieAuthFixture.app] && listed.map(\.scopes) == ["create profile"])

        // A Micropub post with it.
        let posted = try await app.post(IndieAuthFixture.base + "micropub", [("h", "entry"), ("content", "Hello from an app")],
                                        headers: ["Authorization": "Bearer \(accessToken)"])
        #expect(posted.status == 201, "\(posted.text)")
        #expect(try fixture.blog.store.posts(ofUserID: alice.id).map(\.content) == ["Hello from an app"])
        let noMedia = try await app.post(IndieAuthFixture.base + "micropub", [("action", "delete"), ("url", posted.headers["location"] ?? "")],
                                         headers: ["Authorization": "Bearer \(accessToken)"])
        #expect(noMedia.status == 401 && noMedia.text.contains("insufficient_scope"), "delete was not granted")

        // Introspection, with the token itself as the caller's credential.
        let described = try await app.post(introspectionEndpoint, [("token", accessToken)],
                                           headers: ["Authorization": "Bearer \(accessToken)"])
        #expect(described.status == 200)
        let facts = try Self.json(described)
        #expect(facts["active"] as? Bool == true && facts["me"] as? String == me)
        #expect(facts["client_id"] as? String == IndieAuthFixture.app && facts["scope"] as? String == "create profile")
        #expect(facts["iat"] as? Int == Int(TestBlogDate.now(fixture).timeIntervalSince1970) && facts["exp"] == nil)
        let anonymous = try await app.post(introspectionEndpoint, [("token", accessToken)])
        #expect(anonymous.status == 401 && anonymous.headers["www-authenticate"]?.hasPrefix("Bearer") == true)

        // Revocation: 200, and the token no longer works anywhere.
        let revoked = try await app.post(revocationEndpoint, [("token", accessToken)])
        #expect(revoked.status == 200)
        let again = try await app.post(revocationEndpoint, [("token", accessToken)])
        #expect(again.status == 200, "an unknown token is answered alike")
        let refused = try await app.post(IndieAuthFixture.base + "micropub", [("h", "entry"), ("content", "Too late")],
                                         headers: ["Authorization": "Bearer \(accessToken)"])
        #expect(refused.status == 403, "Micropub: a token it does not know is forbidden")
        #expect(try fixture.blog.store.posts(ofUserID: alice.id).count == 1)
        #expect(try fixture.tokens.list(ofUserID: alice.id).filter { $0.kind == .bearer }.isEmpty)
        await web.stop()
    }
}

/// The blog's clock as a date.
enum TestBlogDate {
    static func now(_ fixture: IndieAuthFixture) -> Date {
        Date(timeIntervalSince1970: 1_800_000_000 + Double(fixture.blog.clock.now.nanoseconds) / 1e9)
    }
}
