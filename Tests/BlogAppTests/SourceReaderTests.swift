import BlogApp
import BlogModel
import Foundation
import Testing

/// The verifier's reading of a source page: links to the target, and the
/// h-entry's author, name, content and kind.
@Suite struct SourceReaderTests {
    static let target = "https://blog.example/alice/7.html"
    static let reader = SourceReader(source: URL(string: "https://bob.example/notes/3")!, target: target)

    static func read(_ html: String, type: String = "text/html; charset=utf-8") -> WebmentionContent? {
        reader.read(body: html, contentType: type)
    }

    @Test func linksCountOnlyWhenTheyResolveToTheTarget() {
        #expect(Self.read("<a href=\"https://blog.example/alice/7.html#c\">x</a>") != nil, "fragment aside")
        #expect(Self.read("<a href=\"//blog.example/alice/7.html\">x</a>") != nil, "scheme-relative")
        #expect(Self.read("<img src=\"https://blog.example/alice/7.html\">") != nil)
        #expect(Self.read("<a href='https://blog.example/alice/7.htm'>x</a>") == nil)
        #expect(Self.read("<p>https://blog.example/alice/7.html</p>") == nil, "text is no link in HTML")
        #expect(Self.read("<!-- <a href=\"https://blog.example/alice/7.html\"> -->") == nil, "a comment is no link")
        #expect(Self.read("<script>'<a href=\"https://blog.example/alice/7.html\">'</script>") == nil, "nor a script")
        #expect(Self.read("see https://blog.example/alice/7.html", type: "text/plain") == WebmentionContent(kind: .mention))
    }

    @Test func kindsFromTheEntrysProperties() {
        func entry(_ property: String, href: String = SourceReaderTests.target) -> String {
            "<div class=\"h-entry\"><a class=\"\(property)\" href=\"\(href)\">x</a><p class=\"e-content\">t</p></div>"
        }
        #expect(Self.read(entry("u-in-reply-to"))?.kind == .reply)
        #expect(Self.read(entry("u-like-of"))?.kind == .like)
        #expect(Self.read(entry("u-repost-of"))?.kind == .repost)
        #expect(Self.read(entry("u-bookmark-of"))?.kind == .mention)
        let replyElsewhere = entry("u-in-reply-to", href: "https://other.example/") + "<a href=\"\(Self.target)\">x</a>"
        #expect(Self.read(replyElsewhere)?.kind == .mention, "a reply to another page that links here mentions it")
        let cite = "<div class=\"h-entry\"><div class=\"u-like-of h-cite\"><a class=\"u-url\" href=\"\(Self.target)\">t</a></div></div>"
        #expect(Self.read(cite)?.kind == .like, "the nested h-cite's u-url")
    }

    @Test func authorNameAndContent() throws {
        let html = """
            <article class="h-entry"><h1 class="p-name">A title</h1>
            <div class="p-author h-card"><a class="u-url" href="/"><img class="u-photo" src="me.png"><span class="p-name">Bob  B.</span></a></div>
            <div class="e-content"><p>First line</p><p>Second <i>line</i></p></div>
            <a class="u-in-reply-to" href="\(Self.target)">re</a>
            <div class="h-card"><span class="p-name">Someone else</span></div></article>
            """
        let content = try #require(Self.read(html))
        #expect(content.authorName == "Bob B." && content.authorURL == "https://bob.example/")
        #expect(content.authorPhoto == "https://bob.example/notes/me.png")
        #expect(content.title == "A title")
        #expect(content.text == "First line\nSecond line")
        let plainAuthor = "<div class=\"h-entry\"><a class=\"p-author\" href=\"https://c.example/\">Carol</a>"
            + "<p class=\"p-name e-content\">Hello <a href=\"\(Self.target)\">you</a></p></div>"
        let plain = try #require(Self.read(plainAuthor))
        #expect(plain.authorName == "Carol" && plain.authorURL == "https://c.example/")
        #expect(plain.title.isEmpty, "a name that is the content is no title")
        #expect(plain.text == "Hello you")
    }

    @Test func hostileValuesAreBounded() throws {
        let long = String(repeating: "x", count: 50_000)
        let html = "<div class=\"h-entry\"><a class=\"p-author h-card\" href=\"javascript:alert(1)\">\(long)</a>"
            + "<img class=\"u-photo\" src=\"data:image/png;base64,AA\"><div class=\"e-content\">\(long)</div>"
            + "<a href=\"\(Self.target)\">x</a></div>"
        let content = try #require(Self.read(html))
        #expect(content.authorURL.isEmpty, "only http(s) links are kept")
        #expect(content.authorName.count == WebmentionContent.fieldLimit)
        #expect(content.text.count == WebmentionContent.textLimit)
        let deep = String(repeating: "<div>", count: 100_000) + "<a href=\"\(Self.target)\">x</a>"
        #expect(Self.read(deep) != nil, "deep nesting is flattened, not refused")
    }
}
