import BlogApp
import BlogCore
import BlogWeb
import Foundation
import HTTPTypes
import Testing

/// The text of a post is held to the configured `max_message_bytes`, one
/// rule for the web client and Micropub, on create and on edit: with a
/// limit of 100 bytes, 100 pass and 101 are refused, the limit named.
@Suite
struct TextLimitTests {
    let app: AppFixture

    init() throws {
        app = try AppFixture(maxTextBytes: 100)
    }

    @Test func theWebClientHoldsTheConfiguredLimit() throws {
        let browser = AppFixture.Browser(app.client)
        browser.signIn("alice", "pw")
        let user = try #require(try app.blog.store.user(named: "alice"))
        let over = browser.post("/app/posts", [("csrf", browser.csrf), ("title", "Long"), ("content", String(repeating: "é", count: 51))])
        #expect(over.status == .badRequest && over.text.contains("longer than 100 bytes"))
        #expect(try app.blog.store.posts(ofUserID: user.id).isEmpty)
        let fits = browser.post("/app/posts", [("csrf", browser.csrf), ("title", "Fits"), ("content", String(repeating: "é", count: 50))])
        #expect(fits.status == .seeOther)
        let post = try #require(try app.blog.store.posts(ofUserID: user.id).first)
        let edited = browser.post("/app/posts/\(post.id)/edit", [("csrf", browser.csrf), ("title", "Fits"),
                                                                 ("content", String(repeating: "x", count: 101))])
        #expect(edited.status == .badRequest && edited.text.contains("longer than 100 bytes"))
        #expect(try app.blog.store.posts(ids: [post.id]).first?.content == String(repeating: "é", count: 50))
    }

    @Test func micropubHoldsTheConfiguredLimit() throws {
        try app.blog.service.moderateAddUser("bob", password: "pw")
        let user = try #require(try app.blog.store.user(named: "bob"))
        let secret = try app.tokens.issue(userID: user.id, kind: .bearer, scopes: [.create, .update], label: "t", lifetime: nil).secret
        func send(_ body: String, type: String = "application/x-www-form-urlencoded") -> WebResponse {
            app.micropub.respond(to: WebRequest(method: .post, path: "/micropub",
                                                headers: [.contentType: type, .authorization: "Bearer \(secret)"],
                                                body: Array(body.utf8), peerAddress: "203.0.113.5", secure: true))
        }
        let over = send("h=entry&name=T&content=" + String(repeating: "x", count: 101))
        #expect(over.status == .badRequest && over.text.contains("longer than 100 bytes"))
        #expect(try app.blog.store.posts(ofUserID: user.id).isEmpty)
        let created = send("h=entry&name=T&content=" + String(repeating: "x", count: 100))
        #expect(created.status == .created)
        let url = try #require(created.headers[.location])
        let update = try JSONSerialization.data(withJSONObject: ["action": "update", "url": url,
                                                                 "replace": ["content": [String(repeating: "y", count: 101)]]])
        #expect(send(String(decoding: update, as: UTF8.self), type: "application/json").status == .badRequest)
        #expect(try app.blog.store.posts(ofUserID: user.id).first?.content == String(repeating: "x", count: 100))
    }
}
