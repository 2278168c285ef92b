import BlogApp
import BlogCore
import BlogTestSupport
import BlogWeb
import Foundation
import HTTPTypes
import Testing
import BlogModel

/// Micropub's refusals in the words of section 3.8: another user's post
/// is `403 forbidden`, an `Authorization` that is no bearer token `401
/// unauthorized` with `WWW-Authenticate: Bearer`, a token short of a scope
/// names it, and every refusal, the web server's own included, is a JSON
/// object with `error` and `error_description`.
@Suite
struct MicropubStatusTests {
    let app: AppFixture
    let alice: UserRecord
    let secret: String

    init() throws {
        app = try AppFixture()
        try app.blog.service.moderateAddUser("alice", password: "pw")
        alice = try #require(try app.blog.store.user(named: "alice"))
        secret = try app.tokens.issue(userID: alice.id, kind: .bearer, scopes: [.create, .update, .delete, .media],
                                      label: "test", lifetime: nil).secret
    }

    func send(_ method: HTTPRequest.Method = .post, query: String = "", body: String = "",
              type: String? = "application/x-www-form-urlencoded", authorization: String?) -> WebResponse {
        var headers: HTTPFields = [HTTPField.Name("Host")!: "blog.example"]
        if let type { headers[.contentType] = type }
        if let authorization { headers[.authorization] = authorization }
        return app.micropub.respond(to: WebRequest(method: method, path: "/micropub", query: query, headers: headers,
                                                   body: Array(body.utf8), peerAddress: "203.0.113.5", secure: true))
    }

    /// The JSON error object of a response; fails the test when it is none.
    func error(_ response: WebResponse) throws -> [String: String] {
        #expect(response.headers[.contentType] == "application/json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String])
        #expect(object["error_description"]?.isEmpty == false)
        return object
    }

    func post(_ content: String) throws -> String {
        let created = send(body: "h=entry&content=\(content)", authorization: "Bearer \(secret)")
        #expect(created.status == .created)
        return try #require(created.headers[.location])
    }

    @Test func anotherUsersPostIsForbidden() throws {
        let url = try post("Mine")
        try app.blog.service.moderateAddUser("eve", password: "pw")
        let eve = try #require(try app.blog.store.user(named: "eve"))
        let token = "Bearer " + (try app.tokens.issue(userID: eve.id, kind: .bearer, scopes: [.update, .delete], label: "e",
                                                      lifetime: nil).secret)
        let id = url.split(separator: "/").last!
        for target in [url, AppFixture.base + "eve/" + id] {
            let deleted = send(body: "action=delete&url=" + AppFixture.Browser.encode(target), authorization: token)
            #expect(try deleted.status == .forbidden && error(deleted)["error"] == "forbidden", "\(target)")
            let body = try JSONSerialization.data(withJSONObject: ["action": "update", "url": target,
                                                                   "replace": ["content": ["Eve was here"]]])
            let updated = send(body: String(decoding: body, as: UTF8.self), type: "application/json", authorization: token)
            #expect(try updated.status == .forbidden && error(updated)["error"] == "forbidden", "\(target)")
        }
        let source = send(.get, query: "q=source&url=" + AppFixture.Browser.encode(url), type: nil, authorization: token)
        #expect(source.status == .forbidden)
        // A post that does not exist is no one's: a bad request.
        let missing = send(body: "action=delete&url=" + AppFixture.Browser.encode(AppFixture.base + "eve/99999.html"),
                           authorization: token)
        #expect(try missing.status == .badRequest && error(missing)["error"] == "invalid_request")
        let post = try #require(try app.blog.store.posts(ofUserID: alice.id).first)
        #expect(post.content == "Mine")
    }

    @Test func anAuthorizationThatIsNoBearerTokenIsUnauthorized() throws {
        for field in ["Basic YWxpY2U6cHc=", "Digest username=\"alice\"", "Bearer", "Token \(secret)"] {
            let refused = send(body: "h=entry&content=x", authorization: field)
            #expect(refused.status == .unauthorized, "\(field)")
            #expect(refused.headers[.wwwAuthenticate] == "Bearer", "\(field)")
            #expect(try error(refused)["error"] == "unauthorized", "\(field)")
        }
        let none = send(body: "h=entry&content=x", authorization: nil)
        #expect(none.status == .unauthorized && none.headers[.wwwAuthenticate] == "Bearer")
        #expect(try error(none)["error"] == "unauthorized")
        #expect(try app.blog.store.posts(ofUserID: alice.id).isEmpty)
    }

    /// Section 3.8 gives `insufficient_scope` HTTP 401, and lets the
    /// answer name the scope needed: it does, in the body and the challenge.
    @Test func aTokenShortOfAScopeNamesIt() throws {
        let url = try post("Keep")
        let limited = try app.tokens.issue(userID: alice.id, kind: .bearer, scopes: [.create], label: "c", lifetime: nil).secret
        let refused = send(body: "action=delete&url=" + AppFixture.Browser.encode(url), authorization: "Bearer \(limited)")
        #expect(refused.status == .unauthorized)
        let object = try error(refused)
        #expect(object["error"] == "insufficient_scope" && object["scope"] == "delete")
        #expect(refused.headers[.wwwAuthenticate] == "Bearer error=\"insufficient_scope\", scope=\"delete\"")
        #expect(try app.blog.store.posts(ofUserID: alice.id).count == 1)
    }

    /// The web server's own refusals (too large, too many bodies, busy,
    /// stopping) and an upload over its budget: JSON, with `Retry-After`
    /// where waiting helps.
    @Test func theServersOwnRefusalsAreJSON() throws {
        let request = WebRequest(method: .post, path: "/micropub", headers: [.contentType: "application/json"])
        for refusal in [WebRefusal.tooLarge(limit: 1 << 20), .tooManyBodies, .busy, .stopping] {
            let answer = app.micropub.answer(refusal, to: request)
            #expect(answer.status == refusal.status)
            #expect(try error(answer)["error"] == (refusal == .tooLarge(limit: 1 << 20) ? "invalid_request" : "temporarily_unavailable"))
            #expect(answer.headers[.retryAfter] == refusal.retryAfter.map(String.init))
        }
        #expect(app.micropub.answer(.tooLarge(limit: 1 << 20), to: request).text.contains("1 MiB"))
        // The budget: one upload a minute, spent on the head of the first.
        let budget = UploadBudget(perMinute: 1, burst: 1, concurrent: 1, now: { t0 })
        let strict = Micropub(backend: .init(perform: { _, _, _ in Outcome(reply: .busy) }, storePhoto: { _, _, _, _, _ in .busy },
                                             storage: app.blog.store, tokens: app.tokens, uploads: budget),
                              baseURL: AppFixture.base)
        let upload = WebRequest(method: .post, path: "/micropub/media",
                                headers: [.contentType: "multipart/form-data; boundary=x", .contentLength: "5000000"])
        #expect(strict.refusal(beforeReading: upload) == nil)
        let refused = try #require(strict.refusal(beforeReading: upload))
        #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "60")
        #expect(try error(refused)["error"] == "too_many_requests")
    }
}

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
