import BlogApp
import BlogCore
import BlogModel
import BlogTestSupport
import BlogWeb
import Foundation
import HTTPTypes
import Logging
import Testing

/// The web client's Fediverse settings page: approval by hand, the
/// follows waiting (Approve, Refuse), the followers (Remove), blocks
/// (Block, Unblock), each a plain form with the session's CSRF token,
/// each through `BlogService`; hostile input is refused with the rule it
/// broke and changes nothing; changes per address are bounded.
@Suite("Fediverse settings page")
struct FediverseSettingsTests {
    static let path = FediverseSettings.path
    static let bob = "https://social.example/users/bob"
    static let carol = "https://other.example/carol"

    /// The client with the Fediverse page in front, as blogd wires it.
    static func pages(_ app: AppFixture, budget: BlogSettingsBudget? = nil) -> ApplicationSet {
        let clock = app.blog.clock
        return ApplicationSet([FediverseSettings(client: app.client, service: app.blog.service,
                                                 budget: budget ?? BlogSettingsBudget(perMinute: 1000, burst: 1000,
                                                                                      now: { TestBlog.date(of: clock) })),
                               app.client])
    }

    static func follow(_ app: AppFixture, _ name: String, _ actor: String, accepted: Bool) throws {
        let user = try #require(try app.blog.store.user(named: name))
        _ = try app.blog.store.addFollower(userID: user.id, actorID: actor, inbox: actor + "/inbox", sharedInbox: nil,
                                           followID: actor + "/follow/1", accepted: accepted, at: Date())
    }

    static func answers(_ app: AppFixture) throws -> [DeliveryKind] {
        try app.blog.store.queuedDeliveries(limit: 100).filter { $0.kind != .post }.map(\.kind)
    }

    @Test func theFormsApproveRefuseRemoveAndSetApproval() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(Self.pages(app))
        browser.signIn("hana", "pw")
        #expect(browser.get("/app/settings").text.contains("href=\"/app/settings/fediverse\""))
        try Self.follow(app, "hana", Self.bob, accepted: false)
        try Self.follow(app, "hana", Self.carol, accepted: false)
        try Self.follow(app, "hana", "https://third.example/u/x", accepted: true)
        let page = browser.get(Self.path)
        #expect(page.status == .ok)
        #expect(page.text.contains("Waiting for approval (2)") && page.text.contains("Followers (1)"))
        #expect(page.text.contains("name=\"approve\" value=\"off\" checked"), "accepted at once by default")
        #expect(page.text.contains("<input type=\"hidden\" name=\"actor\" value=\"\(Self.bob)\"><button type=\"submit\">Approve</button>"))
        #expect(page.text.contains("social.example"), "the host is shown")

        let csrf = AppFixture.Browser.csrf(page)
        let approved = browser.post(Self.path + "/approve", [("csrf", csrf), ("actor", Self.bob)])
        #expect(approved.status == .seeOther && approved.headers[.location] == Self.path + "?done=approved")
        #expect(try app.blog.store.follower(userID: try #require(try app.blog.store.user(named: "hana")).id,
                                            actorID: Self.bob)?.state == .accepted)
        #expect(browser.post(Self.path + "/refuse", [("csrf", csrf), ("actor", Self.carol)]).status == .seeOther)
        #expect(browser.post(Self.path + "/remove", [("csrf", csrf), ("actor", "https://third.example/u/x")]).status == .seeOther)
        #expect(try Self.answers(app) == [.accept, .reject, .reject])
        #expect(try app.blog.service.followers(of: "hana").map(\.actorID) == [Self.bob])

        #expect(browser.post(Self.path + "/approval", [("csrf", csrf), ("approve", "on")]).status == .seeOther)
        #expect(try app.blog.service.approvesFollowersByHand(of: "hana"))
        let after = browser.get(Self.path + "?done=approval")
        #expect(after.text.contains("name=\"approve\" value=\"on\" checked") && after.text.contains("Saved."))
        #expect(after.text.contains("Waiting for approval (0)") && after.text.contains("Followers (1)"))
    }

    @Test func blocksAndUnblocksAndRefusesHostileInput() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(Self.pages(app))
        browser.signIn("ivo", "pw")
        try Self.follow(app, "ivo", Self.bob, accepted: true)
        let csrf = browser.csrf
        for (kind, value, message) in [
            ("actor", "", "give the actor&#39;s URL"),
            ("actor", "not a url", "not an actor&#39;s URL"),
            ("actor", "ftp://social.example/u", "not an actor&#39;s URL"),
            ("actor", "javascript:alert(1)", "not an actor&#39;s URL"),
            ("actor", "https://" + String(repeating: "a", count: 2100) + ".example/", "at most 2048 bytes"),
            ("domain", "", "give a domain"),
            ("domain", "https://social.example", "not a URL"),
            ("domain", "social.example/users", "not a URL"),
            ("domain", "bad_domain!.example", "not a domain"),
            ("domain", String(repeating: "a.", count: 130) + "example", "at most 253"),
            ("domain", "a..example", "not a domain"),
            ("person", "social.example", "block an actor or a domain"),
        ] {
            let refused = browser.post(Self.path + "/block", [("csrf", csrf), ("kind", kind), ("value", value)])
            #expect(refused.status == .badRequest, "\(kind) \(value.prefix(40))")
            #expect(refused.text.contains(message), "\(kind) \(value.prefix(40)): \(refused.text)")
        }
        let typed = browser.post(Self.path + "/block", [("csrf", csrf), ("kind", "domain"), ("value", "<b>x</b>")])
        #expect(typed.text.contains("value=\"&lt;b&gt;x&lt;/b&gt;\""), "what was typed comes back, escaped")
        #expect(try app.blog.service.blocks(of: "ivo").isEmpty)
        #expect(try app.blog.service.followerCount(of: "ivo") == 1, "nothing changed")

        for (path, fields) in [(Self.path + "/approve", [("actor", "")]),
                               (Self.path + "/remove", [("actor", String(repeating: "x", count: 3000))]),
                               (Self.path + "/approval", [("approve", "maybe")])] {
            #expect(browser.post(path, [("csrf", csrf)] + fields).status == .badRequest, "\(path)")
        }
        #expect(browser.post(Self.path + "/approve", [("csrf", csrf), ("actor", "https://nobody.example/u")]).status
                == .notFound)
        #expect(browser.post(Self.path + "/refuse", [("csrf", csrf), ("actor", Self.bob)]).text.contains("not waiting"))
        #expect(try app.blog.service.followerCount(of: "ivo") == 1 && Self.answers(app).isEmpty)

        let blocked = browser.post(Self.path + "/block", [("csrf", csrf), ("kind", "domain"), ("value", " Social.Example. ")])
        #expect(blocked.status == .seeOther)
        #expect(try app.blog.service.blocks(of: "ivo").map(\.target) == [.domain("social.example")])
        #expect(try app.blog.service.followerCount(of: "ivo") == 0, "its followers went")
        let page = browser.get(Self.path)
        #expect(page.text.contains("domain <code>social.example</code>"))
        #expect(browser.post(Self.path + "/unblock", [("csrf", csrf), ("kind", "domain"), ("value", "social.example")]).status
                == .seeOther)
        #expect(try app.blog.service.blocks(of: "ivo").isEmpty)
        #expect(browser.post(Self.path + "/unblock", [("csrf", csrf), ("kind", "domain"), ("value", "social.example")]).status
                == .notFound)
    }

    @Test func forgedFormsStrangersAndOtherMethodsChangeNothing() throws {
        let app = try AppFixture()
        let pages = Self.pages(app)
        let browser = AppFixture.Browser(pages)
        browser.signIn("jan", "pw")
        try Self.follow(app, "jan", Self.bob, accepted: false)
        #expect(browser.post(Self.path + "/approve", [("csrf", "forged"), ("actor", Self.bob)]).status == .forbidden)
        #expect(browser.post(Self.path + "/approve", [("csrf", browser.csrf), ("actor", Self.bob)],
                             origin: "https://evil.example").status == .forbidden)
        let stranger = AppFixture.Browser(pages)
        #expect(stranger.get(Self.path).status == .seeOther, "to the login")
        #expect(stranger.post(Self.path + "/approve", [("csrf", ""), ("actor", Self.bob)]).status == .seeOther)
        #expect(browser.get(Self.path + "/approve").status == .methodNotAllowed)
        #expect(browser.post(Self.path + "/elsewhere", [("csrf", browser.csrf)]).status == .notFound)
        #expect(browser.get(Self.path + "?page=-3").status == .ok && browser.get(Self.path + "?page=99999999999").status == .ok)
        #expect(try app.blog.service.followerCount(of: "jan", state: .pending) == 1 && Self.answers(app).isEmpty)
    }

    /// Followers come 50 a page, newest first, with links both ways.
    @Test func followersArePaged() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(Self.pages(app))
        browser.signIn("mia", "pw")
        for index in 1...55 { try Self.follow(app, "mia", "https://f\(index).example/u", accepted: true) }
        let first = browser.get(Self.path)
        #expect(first.text.contains("Followers (55)") && first.text.contains("Page 1 of 2"))
        #expect(first.text.contains("href=\"https://f55.example/u\"") && !first.text.contains("href=\"https://f5.example/u\""))
        #expect(first.text.contains("<a rel=\"next\" href=\"\(Self.path)?page=2\">Older</a>"))
        let second = browser.get(Self.path + "?page=2")
        #expect(second.text.contains("href=\"https://f5.example/u\"") && second.text.contains("href=\"https://f1.example/u\""))
        #expect(!second.text.contains("href=\"https://f6.example/u\"") && second.text.contains("rel=\"prev\""))
        #expect(browser.get(Self.path + "?page=9").status == .ok, "past the end: an empty page, not an error")
    }

    /// An address gets its burst of changes, then 429 until its budget
    /// refills; a refused change changes nothing.
    @Test func changesPerAddressAreBounded() throws {
        let app = try AppFixture()
        let clock = app.blog.clock
        let browser = AppFixture.Browser(Self.pages(app, budget: BlogSettingsBudget(perMinute: 1, burst: 2,
                                                                                     now: { TestBlog.date(of: clock) })),
                                         address: "198.51.100.9")
        browser.signIn("kai", "pw")
        let csrf = browser.csrf
        var statuses: [HTTPResponse.Status] = []
        for index in 0..<3 {
            statuses.append(browser.post(Self.path + "/block", [("csrf", csrf), ("kind", "domain"),
                                                                ("value", "d\(index).example")]).status)
        }
        #expect(statuses == [.seeOther, .seeOther, .tooManyRequests])
        #expect(try app.blog.service.blocks(of: "kai").count == 2)
        // A typing mistake is refused before the budget is charged.
        #expect(browser.post(Self.path + "/block", [("csrf", csrf), ("kind", "domain"), ("value", "")]).status == .badRequest)
    }

    /// Over loopback HTTP, as a browser would: the page, then a block.
    @Test func overLoopback() async throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client, secure: false)
        browser.signIn("lea", "pw")
        let cookie = browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        let csrf = browser.csrf
        let web = try await WebServer(folder: app.blog.publicFolder, host: "127.0.0.1", port: 0,
                                      logger: Logger(label: "test.http"), limits: .patient, application: Self.pages(app))
        let port = web.port
        let (page, blocked) = try await onThread { () throws -> (WireResponse, WireResponse) in
            let wire = try WireHTTP(port: port)
            wire.send("GET \(Self.path) HTTP/1.1\r\nHost: blog.example\r\nCookie: \(cookie)\r\n\r\n")
            let page = try wire.readResponse()
            let body = "csrf=\(csrf)&kind=actor&value=" + AppFixture.Browser.encode(Self.bob)
            wire.send("POST \(Self.path)/block HTTP/1.1\r\nHost: blog.example\r\nCookie: \(cookie)\r\n"
                      + "Origin: http://blog.example\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                      + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return (page, try wire.readResponse())
        }
        await web.stop()
        #expect(page.status == 200 && page.text.contains("<h1>Fediverse</h1>"))
        #expect(blocked.status == 303 && blocked.headers["location"] == Self.path + "?done=blocked")
        #expect(try app.blog.service.blocks(of: "lea").map(\.target) == [.actor(Self.bob)])
    }
}
