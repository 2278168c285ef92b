import BlogCore
import BlogTestSupport
import BlogWire
import Foundation
import HTTPTypes
import Testing

/// The blog's settings on the web client's settings page: saved with the
/// form's CSRF token, shown on the blog's pages at once; a refused value,
/// a forged form or an address over its budget change nothing.
@Suite("Blog settings form")
struct BlogSettingsFormTests {
    private func form(_ csrf: String, title: String = "Notes", description: String = "Walks & bread",
                      name: String = "Hana H.", photo: String = "photos/me.jpg") -> [(String, String)] {
        [("csrf", csrf), ("title", title), ("description", description), ("author_name", name), ("author_photo", photo)]
    }

    @Test func savedSettingsShowOnTheBlog() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        browser.signIn("hana", "pw")
        let page = browser.get("/app/settings")
        #expect(page.text.contains("action=\"/app/settings/blog\""))
        #expect(page.text.contains("id=\"blog-title\" name=\"title\" maxlength=\"\(BlogSettings.maxTitleCharacters)\" value=\"\""))
        let saved = browser.post("/app/settings/blog", form(AppFixture.Browser.csrf(page)))
        #expect(saved.status == .seeOther)
        #expect(saved.headers[.location] == "/app/settings?done=blog")
        #expect(try app.blog.service.blogSettings(of: "hana")
                == BlogSettings(title: "Notes", description: "Walks & bread", authorName: "Hana H.", authorPhoto: "photos/me.jpg"))
        let blog = try #require(app.file("hana.html"))
        #expect(blog.contains("<title>Notes</title>"))
        #expect(blog.contains("<p class=\"blog-description p-summary\">Walks &amp; bread</p>"))
        let again = browser.get("/app/settings?done=blog")
        #expect(again.text.contains("Blog settings saved"))
        #expect(again.text.contains("value=\"Walks &amp; bread\""), "the form shows what is stored, escaped")
    }

    @Test func aRefusedValueChangesNothingAndKeepsWhatWasTyped() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        browser.signIn("ivo", "pw")
        let before = try #require(app.file("ivo.html"))
        for (fields, message) in [
            (form(browser.csrf, photo: "https://evil.example/x.jpg"), "author photo must be a path"),
            (form(browser.csrf, title: String(repeating: "t", count: BlogSettings.maxTitleCharacters + 1)),
             "title is longer than \(BlogSettings.maxTitleCharacters) characters"),
            (form(browser.csrf, description: "two\nlines"), "description must be one line"),
        ] {
            let refused = browser.post("/app/settings/blog", fields)
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains(message), "\(refused.text)")
        }
        let typed = browser.post("/app/settings/blog", form(browser.csrf, title: "<b>Mine</b>", photo: "../x.jpg"))
        #expect(typed.text.contains("value=\"&lt;b&gt;Mine&lt;/b&gt;\""), "what was typed comes back, escaped")
        #expect(try app.blog.service.blogSettings(of: "ivo") == .unset)
        #expect(app.file("ivo.html") == before)
    }

    @Test func aForgedFormChangesNothing() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client)
        browser.signIn("jan", "pw")
        #expect(browser.post("/app/settings/blog", form("forged")).status == .forbidden)
        #expect(browser.post("/app/settings/blog", form(browser.csrf), origin: "https://evil.example").status == .forbidden)
        #expect(try app.blog.service.blogSettings(of: "jan") == .unset)
        let stranger = AppFixture.Browser(app.client)
        #expect(stranger.post("/app/settings/blog", form("")).status == .seeOther, "to the login")
        #expect(try app.blog.service.blogSettings(of: "jan") == .unset)
    }

    /// Each change rewrites the whole blog: an address gets a few, then
    /// waits (429) until its budget refills; another address is not held.
    @Test func changesPerAddressAreBounded() throws {
        let app = try AppFixture()
        let browser = AppFixture.Browser(app.client, address: "198.51.100.7")
        browser.signIn("kai", "pw")
        var statuses: [HTTPResponse.Status] = []
        for index in 0..<5 {
            statuses.append(browser.post("/app/settings/blog", form(browser.csrf, title: "Title \(index)")).status)
        }
        #expect(statuses == [.seeOther, .seeOther, .seeOther, .tooManyRequests, .tooManyRequests])
        #expect(try app.blog.service.blogSettings(of: "kai").title == "Title 2", "the refused ones changed nothing")
        let other = AppFixture.Browser(app.client, address: "203.0.113.9")
        other.signIn("lea", "pw")
        #expect(other.post("/app/settings/blog", form(other.csrf)).status == .seeOther)
        app.blog.clock.advance(by: 10)
        #expect(browser.post("/app/settings/blog", form(browser.csrf, title: "Later")).status == .seeOther, "refilled")
    }
}
