import BlogApp
import BlogCore
import BlogTestSupport
import BlogWeb
import BlogWire
import Foundation
import HTTPTypes
import Testing

/// The web client against a real blog: a person registers, posts, edits,
/// deletes and logs out, and the public pages follow; every refusal
/// (a forged or foreign form, another's post, a wrong password, an
/// address over its budget) changes nothing.
@Suite
struct WebClientTests {
    @Test func registerPostEditDeleteAndLogOut() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        #expect(browser.get("/app/").status == .seeOther)

        let registered = browser.signIn("alice", "secret pw")
        #expect(registered.status == .seeOther && registered.headers[.location] == "/app/")
        // Over HTTPS, a __Host- cookie: no one on plain HTTP can plant one.
        let cookie = try #require(registered.headers[values: .setCookie].first { $0.hasPrefix("__Host-blogd_session=") })
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Secure") && cookie.contains("Path=/"))
        #expect(app.file("alice.html") != nil)

        let posted = browser.post("/app/posts", [("csrf", browser.csrf), ("title", "Hello <web>"), ("content", "First line\nsecond")])
        #expect(posted.status == .seeOther && posted.headers[.location] == "/app/?done=posted")
        let owner = try #require(try app.blog.store.user(named: "alice"))
        let post = try #require(try app.blog.store.posts(ofUserID: owner.id).first)
        #expect(post.title == "Hello <web>" && post.content == "First line\nsecond")
        #expect(app.file("alice.html")?.contains("Hello &lt;web&gt;") == true)
        let home = browser.get("/app/?done=posted")
        #expect(home.text.contains("Published.") && home.text.contains("Hello &lt;web&gt;") && !home.text.contains("<web>"))

        let edit = browser.get("/app/posts/\(post.id)/edit")
        #expect(edit.status == .ok && edit.text.contains("First line"))
        let saved = browser.post("/app/posts/\(post.id)/edit", [("csrf", AppFixture.Browser.csrf(edit)), ("title", "Hello again"),
                                                                ("content", "Fixed")])
        #expect(saved.headers[.location] == "/app/?done=edited")
        #expect(app.file("alice/\(post.id).html")?.contains("Hello again") == true)

        let deleted = browser.post("/app/posts/\(post.id)/delete", [("csrf", browser.csrf)])
        #expect(deleted.headers[.location] == "/app/?done=deleted")
        #expect(app.file("alice/\(post.id).html") == nil && app.file("alice/\(post.id).html.gone") != nil)

        let out = browser.post("/app/logout", [("csrf", browser.csrf)])
        #expect(out.status == .seeOther && browser.cookies["__Host-blogd_session"] == nil)
        #expect(browser.get("/app/").status == .seeOther)
    }

    @Test func aPostWithAPlaceGoesOnTheMap() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        browser.signIn("mapper", "pw")
        let posted = browser.post("/app/posts", [("csrf", browser.csrf), ("title", "Here"), ("content", ""),
                                                 ("latitude", "48.8584"), ("longitude", "2.2945")])
        #expect(posted.status == .seeOther)
        let owner = try #require(try app.blog.store.user(named: "mapper"))
        let post = try #require(try app.blog.store.posts(ofUserID: owner.id).first)
        #expect(post.place?.latitude == "48.8584" && post.place?.longitude == "2.2945")
        let bad = browser.post("/app/posts", [("csrf", browser.csrf), ("title", "Nowhere"), ("content", ""),
                                              ("latitude", "91"), ("longitude", "0")])
        #expect(bad.status == .badRequest && bad.text.contains("latitude from -90 to 90"))
        #expect(try app.blog.store.posts(ofUserID: post.userID).count == 1)
    }

    @Test func loginWithTheRightPasswordOnly() throws {
        let app = try AppFixture()
        try app.blog.service.moderateAddUser("bob", password: "right")
        let browser = AppFixture.Browser(app.client)
        let wrong = browser.signIn("bob", "wrong", register: false)
        #expect(wrong.status == .unauthorized && wrong.text.contains("Wrong name or password"))
        #expect(browser.cookies["__Host-blogd_session"] == nil)
        let right = browser.signIn("bob", "right", register: false)
        #expect(right.status == .seeOther && browser.cookies["__Host-blogd_session"] != nil)
        #expect(browser.get("/app/").text.contains("My posts"))
    }

    /// A form without its token, with another's, or from another site
    /// changes nothing.
    @Test func forgedFormsChangeNothing() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        browser.signIn("carol", "pw")
        let user = try #require(try app.blog.store.user(named: "carol"))
        #expect(browser.post("/app/posts", [("title", "no token"), ("content", "")]).status == .forbidden)
        #expect(browser.post("/app/posts", [("csrf", "0123456789abcdef0123456789abcdef"), ("title", "bad"), ("content", "")]).status == .forbidden)
        let foreign = browser.post("/app/posts", [("csrf", browser.csrf), ("title", "cross"), ("content", "")],
                                   origin: "https://evil.example")
        #expect(foreign.status == .forbidden)
        #expect(try app.blog.store.posts(ofUserID: user.id).isEmpty)
        // A register form sent without the form cookie it came with.
        let stranger = AppFixture.Browser(app.client)
        let form = stranger.get("/app/register")
        stranger.cookies = [:]
        #expect(stranger.post("/app/register", [("csrf", AppFixture.Browser.csrf(form)), ("name", "mallory"), ("password", "pw")])
            .status == .forbidden)
        #expect(try app.blog.store.user(named: "mallory") == nil)
    }

    @Test func anotherUsersPostCannotBeTouched() throws {
        let app = try AppFixture()
        let alice = AppFixture.Browser(app.client)
        alice.signIn("alice", "pw")
        alice.post("/app/posts", [("csrf", alice.csrf), ("title", "Mine"), ("content", "")])
        let owner = try #require(try app.blog.store.user(named: "alice"))
        let post = try #require(try app.blog.store.posts(ofUserID: owner.id).first)
        let eve = AppFixture.Browser(app.client, address: "198.51.100.9")
        eve.signIn("eve", "pw")
        #expect(eve.get("/app/posts/\(post.id)/edit").status == .notFound)
        #expect(eve.post("/app/posts/\(post.id)/edit", [("csrf", eve.csrf), ("title", "Yours"), ("content", "")]).status == .notFound)
        #expect(eve.post("/app/posts/\(post.id)/delete", [("csrf", eve.csrf)]).status == .notFound)
        #expect(try app.blog.store.posts(ids: [post.id]).first?.title == "Mine")
    }

    /// A session ends at logout, when the admin suspends the user, and
    /// when it expires.
    @Test func sessionsEnd() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        browser.signIn("dave", "pw")
        #expect(browser.get("/app/").status == .ok)
        try app.blog.service.moderateSuspend("dave", true)
        #expect(browser.get("/app/").status == .seeOther)
        try app.blog.service.moderateSuspend("dave", false)
        #expect(browser.get("/app/").status == .ok)
        app.blog.clock.advance(by: 31 * 86_400)
        #expect(browser.get("/app/").status == .seeOther)
    }

    /// "Log out everywhere" ends the user's sessions in every browser, and
    /// only theirs; Micropub tokens stay; without the form's token it is
    /// refused and ends nothing.
    @Test func logOutEverywhereEndsEverySessionButTokens() throws {
        let app = try AppFixture()
        let phone = AppFixture.Browser(app.client, address: "192.0.2.10")
        let laptop = AppFixture.Browser(app.client, address: "192.0.2.11")
        let other = AppFixture.Browser(app.client, address: "192.0.2.12")
        phone.signIn("gina", "pw")
        laptop.signIn("gina", "pw", register: false)
        other.signIn("hugo", "pw")
        let gina = try #require(try app.blog.store.user(named: "gina"))
        let bearer = try app.tokens.issue(userID: gina.id, kind: .bearer, scopes: [.create], label: "app", lifetime: nil).secret
        #expect(phone.post("/app/settings/sessions", [("csrf", "forged")]).status == .forbidden)
        #expect(laptop.get("/app/").status == .ok, "a forged form ends nothing")
        let out = phone.post("/app/settings/sessions", [("csrf", phone.csrf)])
        #expect(out.status == .seeOther)
        #expect(phone.get("/app/").status == .seeOther)
        #expect(laptop.get("/app/").status == .seeOther, "the other browser's session ended too")
        #expect(other.get("/app/").status == .ok, "another user's did not")
        #expect(try app.tokens.verify(bearer, kind: .bearer) != nil, "tokens stay")
        #expect(try app.tokens.list(ofUserID: gina.id).filter { $0.kind == .session }.isEmpty)
    }

    /// Logins on the web spend the address's hash budget of the blog port.
    @Test func loginsShareTheBlogPortsHashBudget() throws {
        let app = try AppFixture { options in
            options.hashesPerAddressPerSecond = 0.001
            options.hashBurstPerAddress = 2
        }
        // Each a fresh browser (no session yet), all from one address.
        func browser() -> AppFixture.Browser { AppFixture.Browser(app.client, address: "192.0.2.44") }
        #expect(browser().signIn("erin", "pw").status == .seeOther)
        #expect(browser().signIn("erin", "pw", register: false).status == .seeOther)
        let third = browser().signIn("erin", "pw", register: false)
        #expect(third.status == .tooManyRequests && third.text.contains("wait a minute"))
        // Another address still gets in.
        #expect(AppFixture.Browser(app.client, address: "192.0.2.45").signIn("erin", "pw", register: false).status == .seeOther)
    }

    @Test func closedRegistrationRefuses() throws {
        let app = try AppFixture(registrationOpen: false)
        let browser = AppFixture.Browser(app.client)
        #expect(browser.get("/app/register").text.contains("Registration is closed"))
        let refused = browser.signIn("frank", "pw")
        #expect(refused.status == .forbidden && refused.text.contains("Registration is closed"))
        #expect(try app.blog.store.user(named: "frank") == nil)
    }

    @Test func cookiesAreSecureOnlyOverHTTPS() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client, secure: false)
        let registered = browser.signIn("gina", "pw")
        let cookie = try #require(registered.headers[values: .setCookie].first { $0.hasPrefix("blogd_session=") })
        #expect(!cookie.contains("Secure") && cookie.contains("HttpOnly"))
    }

    @Test func pagesForbidFramingAndCaching() throws {
        let app = try AppFixture()
        let page = AppFixture.Browser(app.client).get("/app/login")
        #expect(page.headers[.cacheControl] == "no-store")
        #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
        #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
    }

    @Test func tokensAreMadeAndRevokedOnTheSettingsPage() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        browser.signIn("hana", "pw")
        let settings = browser.get("/app/settings")
        let made = browser.post("/app/settings/tokens", [("csrf", AppFixture.Browser.csrf(settings)), ("label", "Quill"),
                                                        ("scope", "create"), ("scope", "media")])
        let text = made.text
        let start = try #require(text.range(of: "<code id=\"new-token\">"))
        let secret = String(text[start.upperBound...].prefix { $0 != "<" })
        let found = try #require(try app.tokens.verify(secret, kind: .bearer))
        #expect(found.token.label == "Quill" && found.token.allows(.create) && !found.token.allows(.delete))
        #expect(browser.post("/app/settings/tokens/\(found.token.id)/revoke", [("csrf", browser.csrf)]).status == .seeOther)
        #expect(try app.tokens.verify(secret, kind: .bearer) == nil)
    }

    /// A web login proves the password to this browser only: it grants no
    /// protocol lease, so no one else at the same address can post as the
    /// user over TCP.
    @Test func aWebLoginGrantsNoLeaseToTheAddress() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client, address: "192.0.2.77")
        browser.signIn("ivan", "pw")
        let user = try Username("ivan")
        var stranger = Session(peerAddress: "192.0.2.77")
        #expect(try app.blog.service.execute(.newPost(user: user, title: Title("Not me"), content: PostText(framed: "")), session: &stranger) == .postRefused)
        let owner = try #require(try app.blog.store.user(named: "ivan"))
        #expect(try app.blog.store.posts(ofUserID: owner.id).isEmpty)
    }

    /// A field that is not UTF-8 refuses the whole form: nothing is
    /// silently emptied.
    @Test func formsWithInvalidTextChangeNothing() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        browser.signIn("judy", "pw")
        browser.post("/app/posts", [("csrf", browser.csrf), ("title", "Keep"), ("content", "Text")])
        let owner = try #require(try app.blog.store.user(named: "judy"))
        let post = try #require(try app.blog.store.posts(ofUserID: owner.id).first)
        let body = "csrf=\(browser.csrf)&title=Keep&content=%FF%FE"
        let edited = browser.send(.post, "/app/posts/\(post.id)/edit", body: Array(body.utf8),
                                  extra: [.contentType: "application/x-www-form-urlencoded", .origin: "https://blog.example"])
        #expect(edited.status == .badRequest)
        let created = browser.send(.post, "/app/posts", body: Array("csrf=\(browser.csrf)&title=%C0%AF&content=x".utf8),
                                   extra: [.contentType: "application/x-www-form-urlencoded", .origin: "https://blog.example"])
        #expect(created.status == .badRequest)
        let posts = try app.blog.store.posts(ofUserID: owner.id)
        #expect(posts.count == 1 && posts.first?.content == "Text")
    }
}
