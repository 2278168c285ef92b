import BlogApp
import BlogPages
import BlogWeb
import Foundation
import HTTPTypes
import Testing

/// The site's own actor at `BASE ap` (`InstanceActorDocument`): JSON to
/// a fediverse server, the site's front page to a browser, found by
/// WebFinger as `acct:HOST@HOST` unless a blog has that name, `503`
/// while its key cannot be had.
@Suite struct InstanceActorTests {
    @Test func theSiteActorAnswersAsJSONAndSendsBrowsersHome() async throws {
        let f = try await ActivityPubFixture()
        defer { Task { await f.close() } }
        let answer = try await f.get("/ap", accept: ActivityPubFixture.mastodonAccept)
        #expect(answer.status == 200)
        let actor = try ActivityPubFixture.json(answer)
        #expect(actor["id"] as? String == "https://blog.example/ap")
        #expect(actor["type"] as? String == "Application")
        #expect(actor["preferredUsername"] as? String == "blog.example")
        #expect(actor["inbox"] as? String == "https://blog.example/ap/inbox")
        let key = try #require(actor["publicKey"] as? [String: Any])
        #expect(key["id"] as? String == "https://blog.example/ap#main-key")
        #expect(key["owner"] as? String == "https://blog.example/ap")
        #expect(key["publicKeyPem"] as? String == ActivityPubFixture.pem)
        let browser = try await f.get("/ap", accept: ActivityPubFixture.browserAccept)
        #expect(browser.status == 303)
        #expect(browser.headers["location"] == "https://blog.example/")
        let finger = try await f.get("/.well-known/webfinger?resource=acct:blog.example@blog.example")
        let jrd = try ActivityPubFixture.json(finger)
        #expect(jrd["subject"] as? String == "acct:blog.example@blog.example")
        let links = try #require(jrd["links"] as? [[String: Any]])
        #expect(links.first?["href"] as? String == "https://blog.example/ap")
    }

    /// On a host without a dot a blog may share the site's name: the blog wins.
    @Test func aBlogOfTheHostsNameComesFirst() async throws {
        let f = try await ActivityPubFixture()
        defer { Task { await f.close() } }
        f.say("register:localhost:pw[E];")
        var hooks = ActivityPubHooks(version: "1")
        hooks.instanceKeyPEM = { ActivityPubFixture.pem }
        let pages = ActivityPubPages(storage: f.blog.store, baseURL: "http://localhost:8080/", hooks: hooks)
        let request = WebRequest(method: .get, path: "/.well-known/webfinger", query: "resource=acct:localhost@localhost:8080")
        let answer = pages.respond(to: request)
        let jrd = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        let links = try #require(jrd["links"] as? [[String: Any]])
        #expect(links.first?["href"] as? String == "http://localhost:8080/ap/localhost")
    }

    @Test func noKeyYetIsATemporaryRefusal() async throws {
        let f = try await ActivityPubFixture()
        defer { Task { await f.close() } }
        let pages = ActivityPubPages(storage: f.blog.store, baseURL: ActivityPubFixture.base, hooks: ActivityPubHooks(version: "1"))
        var headers = HTTPFields()
        headers[.accept] = "application/activity+json"
        let answer = pages.respond(to: WebRequest(method: .get, path: "/ap", headers: headers))
        #expect(answer.status == .serviceUnavailable)
        #expect(answer.headers[.retryAfter] == "5")
    }
}
