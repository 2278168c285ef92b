import BlogApp
import BlogCore
import BlogWeb
import BlogWire
import Foundation
import HTTPTypes
import Testing

/// A change of password on the settings page: the old password checked
/// as a login is (wrong, it changes nothing and counts as a failed
/// login), the new one twice; on success every other web session and
/// every blog-port lease of the user ends, this browser stays signed in,
/// Micropub tokens stay.
@Suite
struct PasswordChangeTests {
    let app: AppFixture
    let laptop: AppFixture.Browser
    let user: Username

    init() throws {
        app = try AppFixture()
        laptop = AppFixture.Browser(app.client, address: "192.0.2.11")
        laptop.signIn("alice", "old password")
        user = try Username("alice")
    }

    func change(_ browser: AppFixture.Browser, old: String, new: String, again: String? = nil,
                csrf: String? = nil) -> WebResponse {
        browser.post("/app/settings/password", [("csrf", csrf ?? browser.csrf), ("old_password", old),
                                                ("new_password", new), ("new_password_again", again ?? new)])
    }

    func blogPort(_ request: Request, from address: String) -> Reply {
        app.blog.server.perform(request, session: Session(peerAddress: address)).reply
    }

    @Test func theSettingsPageOffersIt() {
        let page = laptop.get("/app/settings").text
        #expect(page.contains("action=\"/app/settings/password\"") && page.contains("name=\"old_password\"")
            && page.contains("name=\"new_password_again\"") && page.contains("Micropub tokens stay"))
    }

    @Test func aNewPasswordEndsEveryOtherWayIn() throws {
        let phone = AppFixture.Browser(app.client, address: "192.0.2.10")
        phone.signIn("alice", "old password", register: false)
        let record = try #require(try app.blog.store.user(named: "alice"))
        let token = try app.tokens.issue(userID: record.id, kind: .bearer, scopes: [.create], label: "app", lifetime: nil).secret
        // A login on the blog port leaves a lease: that address may post.
        #expect(blogPort(.login(user: user, password: "old password"), from: "198.51.100.7") == .loggedIn)
        #expect(try blogPort(.newPost(user: user, title: Title("By lease"), content: PostText(framed: "")), from: "198.51.100.7") == .posted)

        let changed = change(laptop, old: "old password", new: "new password")
        #expect(changed.status == .seeOther && changed.headers[.location] == "/app/settings?done=password")
        let settings = laptop.get("/app/settings?done=password")
        #expect(settings.status == .ok && settings.text.contains("Password changed"), "this browser stays signed in")
        #expect(phone.get("/app/").status == .seeOther, "the other session ended")
        #expect(try blogPort(.newPost(user: user, title: Title("Lease gone"), content: PostText(framed: "")), from: "198.51.100.7") == .postRefused)
        #expect(try app.tokens.verify(token, kind: .bearer) != nil, "Micropub tokens stay")
        #expect(blogPort(.login(user: user, password: "old password"), from: "198.51.100.8") == .loginRefused)
        #expect(blogPort(.login(user: user, password: "new password"), from: "198.51.100.8") == .loggedIn)
        #expect(try app.blog.store.posts(ofUserID: record.id).map(\.title) == ["By lease"])
    }

    @Test func refusalsChangeNothing() throws {
        let phone = AppFixture.Browser(app.client, address: "192.0.2.10")
        phone.signIn("alice", "old password", register: false)
        let wrong = change(laptop, old: "not it", new: "new password")
        #expect(wrong.status == .forbidden && wrong.text.contains("old password is wrong"))
        let differ = change(laptop, old: "old password", new: "new password", again: "new passwort")
        #expect(differ.status == .badRequest && differ.text.contains("differ"))
        let empty = change(laptop, old: "old password", new: "")
        #expect(empty.status == .badRequest && empty.text.contains("Type a password"))
        let long = change(laptop, old: "old password", new: String(repeating: "x", count: 257))
        #expect(long.status == .badRequest && long.text.contains("at most 256 bytes"))
        let forged = change(laptop, old: "old password", new: "new password", csrf: "0123456789abcdef0123456789abcdef")
        #expect(forged.status == .forbidden)
        let foreign = laptop.post("/app/settings/password", [("csrf", laptop.csrf), ("old_password", "old password"),
                                                             ("new_password", "x"), ("new_password_again", "x")],
                                  origin: "https://evil.example")
        #expect(foreign.status == .forbidden)
        #expect(phone.get("/app/").status == .ok, "no session ended")
        #expect(blogPort(.login(user: user, password: "old password"), from: "198.51.100.8") == .loggedIn)
        // Signed out, the form leads to the login.
        let stranger = AppFixture.Browser(app.client, address: "192.0.2.99")
        #expect(stranger.post("/app/settings/password", [("old_password", "old password"), ("new_password", "x"),
                                                          ("new_password_again", "x")]).status == .seeOther)
        #expect(blogPort(.login(user: user, password: "old password"), from: "198.51.100.8") == .loggedIn)
    }

    /// A stolen session guessing the old password meets the login
    /// throttle: after the allowed failures (5) even the right one is
    /// refused from that address, and nothing changes; another address
    /// still logs in.
    @Test func guessingTheOldPasswordIsThrottledAsLoginsAre() throws {
        for attempt in 0..<5 {
            #expect(change(laptop, old: "guess \(attempt)", new: "mine now").status == .forbidden)
        }
        let right = change(laptop, old: "old password", new: "mine now")
        #expect(right.status == .forbidden && right.text.contains("old password is wrong"))
        #expect(blogPort(.login(user: user, password: "old password"), from: "192.0.2.11") == .loginRefused, "locked out there")
        #expect(blogPort(.login(user: user, password: "old password"), from: "198.51.100.8") == .loggedIn)
    }
}
