import BlogApp
import BlogCore
import BlogTestSupport
import BlogWeb
import Foundation
import Testing

/// The post form's tags field: tags besides the text's hashtags, on a
/// new post and an edit; a word that is no tag is named back and nothing
/// is stored.
@Suite
struct WebTagsTests {
    @Test func theTagsFieldAddsTagsAndAnEditChangesThem() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        browser.signIn("alice", "pw")
        #expect(browser.get("/app/").text.contains("name=\"tags\""))
        let posted = browser.post("/app/posts", [("csrf", browser.csrf), ("title", "T"), ("content", "About #Swift"),
                                                 ("tags", "Linux, #web")])
        #expect(posted.status == .seeOther)
        let owner = try #require(try app.blog.store.user(named: "alice"))
        let post = try #require(try app.blog.store.posts(ofUserID: owner.id).first)
        #expect(post.categories == ["linux", "web"] && post.tags == ["swift", "linux", "web"])
        #expect(app.file("alice.html")?.contains("href=\"tags/linux\">#linux</a>") == true)

        let edit = browser.get("/app/posts/\(post.id)/edit")
        #expect(edit.text.contains("value=\"linux web\""))
        let saved = browser.post("/app/posts/\(post.id)/edit", [("csrf", AppFixture.Browser.csrf(edit)), ("title", "T"),
                                                                ("content", "Now #rust"), ("tags", "web")])
        #expect(saved.status == .seeOther)
        let edited = try #require(try app.blog.store.posts(ids: [post.id]).first)
        #expect(edited.tags == ["rust", "web"])
        #expect(try app.blog.store.taggedPosts("swift", ofUserID: nil, before: nil, limit: 5).isEmpty)
        #expect(try app.blog.store.taggedPosts("rust", ofUserID: nil, before: nil, limit: 5).map(\.post.id) == [post.id])
    }

    @Test func aWordThatIsNoTagIsRefused() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        browser.signIn("alice", "pw")
        let refused = browser.post("/app/posts", [("csrf", browser.csrf), ("title", "T"), ("content", "x"),
                                                  ("tags", "fine <b>bad</b>")])
        #expect(refused.status == .badRequest && refused.text.contains("is not a tag"))
        #expect(refused.text.contains("value=\"fine &lt;b&gt;bad&lt;/b&gt;\""), "what was typed comes back, escaped")
        let many = (0...20).map { "t\($0)" }.joined(separator: " ")
        #expect(browser.post("/app/posts", [("csrf", browser.csrf), ("title", "T"), ("content", "x"), ("tags", many)])
            .status == .badRequest)
        let owner = try #require(try app.blog.store.user(named: "alice"))
        #expect(try app.blog.store.posts(ofUserID: owner.id).isEmpty)
    }
}
