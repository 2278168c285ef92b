import BlogApp
import BlogCore
import BlogTestSupport
import BlogWeb
import Foundation
import HTTPTypes
import Testing

/// The web client's trash: delete says where the post goes and for how
/// long, the Trash page lists it with a Restore button, and a restore
/// (CSRF-checked, the author's own only) brings it back to its pages.
@Suite
struct WebTrashTests {
    @Test func deleteGoesToTheTrashAndRestoreBringsThePostBack() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        browser.signIn("alice", "pw")
        browser.post("/app/posts", [("csrf", browser.csrf), ("title", "Older"), ("content", "one")])
        browser.post("/app/posts", [("csrf", browser.csrf), ("title", "Oops <b>"), ("content", "two")])
        let owner = try #require(try app.blog.store.user(named: "alice"))
        let posts = try app.blog.store.posts(ofUserID: owner.id)
        let post = try #require(posts.first)
        let page = try #require(app.file("alice/\(post.id).html"))

        let home = browser.get("/app/")
        #expect(home.text.contains("Move to trash") && home.text.contains("href=\"/app/trash\""))
        #expect(home.text.contains("for 30 days"), "the delete button says for how long")
        #expect(browser.get("/app/trash").text.contains("The trash is empty."))

        let deleted = browser.post("/app/posts/\(post.id)/delete", [("csrf", browser.csrf)])
        #expect(deleted.headers[.location] == "/app/?done=deleted")
        #expect(browser.get("/app/?done=deleted").text.contains("Moved to the trash."))
        #expect(app.file("alice/\(post.id).html") == nil && app.file("alice/\(post.id).html.gone") != nil)
        #expect(app.file("alice.html")?.contains("Oops") == false)

        let trash = browser.get("/app/trash")
        #expect(trash.status == .ok && trash.text.contains("Oops &lt;b&gt;") && !trash.text.contains("<b>"))
        #expect(trash.text.contains("action=\"/app/posts/\(post.id)/restore\"") && trash.text.contains(">Restore</button>"))
        #expect(!trash.text.contains(">Older<"), "only the trashed posts")

        // A forged form, another user, a post not in the trash: nothing changes.
        #expect(browser.post("/app/posts/\(post.id)/restore", [("csrf", "forged")]).status == .forbidden)
        let eve = AppFixture.Browser(app.client, address: "198.51.100.9")
        eve.signIn("eve", "pw")
        #expect(eve.get("/app/trash").text.contains("The trash is empty."), "eve sees only her own trash")
        #expect(eve.post("/app/posts/\(post.id)/restore", [("csrf", eve.csrf)]).status == .notFound)
        #expect(browser.post("/app/posts/\(posts[1].id)/restore", [("csrf", browser.csrf)]).status == .notFound, "not trashed")
        #expect(browser.get("/app/posts/\(post.id)/restore").status == .methodNotAllowed)
        #expect(app.file("alice/\(post.id).html") == nil)

        let restored = browser.post("/app/posts/\(post.id)/restore", [("csrf", browser.csrf)])
        #expect(restored.status == .seeOther && restored.headers[.location] == "/app/trash?done=restored")
        #expect(browser.get("/app/trash?done=restored").text.contains("Restored."))
        #expect(app.file("alice/\(post.id).html") == page, "its page as it was, at the same URL")
        #expect(app.file("alice/\(post.id).html.gone") == nil)
        #expect(try app.blog.store.posts(ofUserID: owner.id) == posts, "the same id and date")
        #expect(browser.get("/app/").text.contains("Oops &lt;b&gt;"))
    }

    @Test func theTrashNeedsASession() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        #expect(browser.get("/app/trash").headers[.location] == "/app/login")
        #expect(browser.post("/app/posts/1/restore", [("csrf", "x")]).headers[.location] == "/app/login")
    }
}
