import Foundation
import Testing
import BlogModel
import BlogTestSupport
@testable import BlogPages

/// URLs in a post's text become links, and nothing else of the text
/// becomes markup.
@Suite("Links in posts")
struct LinkedTextTests {
    private func html(_ text: String) -> String {
        var out: [UInt8] = []
        LinkedText.append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test func aURLBecomesALinkAndTheRestStaysText() {
        #expect(html("Read https://example.com/a?b=1&c=2 now")
                == "Read <a href=\"https://example.com/a?b=1&amp;c=2\">https://example.com/a?b=1&amp;c=2</a> now")
        #expect(html("http://example.org") == "<a href=\"http://example.org\">http://example.org</a>")
        #expect(html("HTTPS://Example.com/X") == "<a href=\"HTTPS://Example.com/X\">HTTPS://Example.com/X</a>")
    }

    @Test(arguments: [
        ("See https://example.com.", "https://example.com"),
        ("https://example.com/page, and more", "https://example.com/page"),
        ("(see https://example.com/a)", "https://example.com/a"),
        ("https://en.wikipedia.org/wiki/Swift_(programming_language)", "https://en.wikipedia.org/wiki/Swift_(programming_language)"),
        ("[https://example.com/x]", "https://example.com/x"),
        ("'https://example.com/q'", "https://example.com/q"),
        ("Wow https://example.com/!?", "https://example.com/"),
        ("https://example.com/ü", "https://example.com/"),
    ])
    func sentencePunctuationIsLeftOut(_ text: String, _ url: String) {
        #expect(LinkedText.urls(in: text) == [url])
    }

    @Test(arguments: [
        "javascript:alert(1)", "data:text/html,<script>x</script>", "ftp://example.com/file",
        "xhttp://example.com", "http://", "https:// example.com", "mailto:a@example.com", "www.example.com",
    ])
    func otherSchemesAndBrokenOnesStayText(_ text: String) {
        #expect(LinkedText.urls(in: text).isEmpty)
        var plain: [UInt8] = []
        HTMLEscape.appendMultiline(text, to: &plain)
        #expect(html(text) == String(decoding: plain, as: UTF8.self))
    }

    /// A URL ends where markup could start: nothing in it closes the
    /// attribute or opens a tag.
    @Test func noMarkupGetsThroughAURL() {
        let text = "https://example.com/\"><script>alert(1)</script> https://example.com/`x` https://example.com/'onmouseover=x"
        let out = html(text)
        #expect(!out.contains("<script"))
        #expect(!out.contains("\"><"))
        #expect(LinkedText.urls(in: text) == ["https://example.com/", "https://example.com/", "https://example.com/'onmouseover=x"])
        #expect(out.contains("<a href=\"https://example.com/&#39;onmouseover=x\">"), "a quote inside stays escaped")
        // Every < in the output opens one of our own tags.
        let tags = out.components(separatedBy: "<").dropFirst().map { String($0.prefix(while: { $0 != " " && $0 != ">" })) }
        #expect(Set(tags).isSubset(of: ["a", "/a", "br"]))
    }

    /// A URL followed by a long run of closing brackets (a hostile post
    /// of 60,000) loses them all; the brackets are counted once.
    @Test func aRunOfClosersIsLeftOutOfTheURL() {
        let text = "https://a.example/(x)" + String(repeating: ")", count: 60_000)
        #expect(LinkedText.urls(in: text) == ["https://a.example/(x)"])
        #expect(LinkedText.count(text) == html(text).utf8.count)
    }

    @Test func lineBreaksAroundLinksStayBreaks() {
        #expect(html("one\r\nhttps://example.com\ntwo")
                == "one<br><a href=\"https://example.com\">https://example.com</a><br>two")
        #expect(LinkedText.urls(in: "https://a.example\nhttps://b.example") == ["https://a.example", "https://b.example"])
    }

    /// A post's weight is exactly the bytes its text takes on the page,
    /// links included (seeded, so a failure repeats).
    @Test func theWeightIsTheRenderedSize() {
        var generator = SeededGenerator(seed: 28)
        let pieces = ["https://example.com/a", "http://x.org", " ", "\n", "\r\n", "(", ")", ".", "<", "&", "é", "ok", "https://", "\"", "h"]
        for _ in 0..<500 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            var out: [UInt8] = []
            LinkedText.append(text, to: &out)
            #expect(LinkedText.count(text) == out.count, "\(text.debugDescription)")
            #expect(String(validating: out, as: UTF8.self) != nil)
        }
    }

    /// The page, the post's own page and the feed all carry the link.
    @Test func pagesAndFeedsLinkTheURL() throws {
        let post = PostRecord(id: 7, userID: 1, title: "Links", content: "Go to https://example.com/x.", createdAt: Date(timeIntervalSince1970: 0))
        let link = "<a href=\"https://example.com/x\">https://example.com/x</a>."
        let fragment = String(decoding: PageRenderer.fragment(post, user: "alice"), as: UTF8.self)
        #expect(fragment.contains(link))
        #expect(PageRenderer.weight(title: post.title, content: post.content)
                == HTMLEscape.multilineCount(post.title) + LinkedText.count(post.content))
        let entry = AtomFeed.Entry(id: "tag:example.org,2026:post-7", title: post.title, author: "alice",
                                   link: "https://example.org/alice/7.html", content: post.content,
                                   published: post.createdAt, updated: post.createdAt, siteURL: "https://example.org/")
        let feed = String(decoding: AtomFeed.render(id: "tag:example.org,2026:alice", title: "alice", selfURL: "https://example.org/alice.atom",
                                                    alternateURL: "https://example.org/alice.html", updated: post.createdAt,
                                                    entries: [entry]), as: UTF8.self)
        // The content is HTML, escaped once more for XML.
        let inFeed = link.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        #expect(feed.contains(inFeed) || feed.contains(inFeed.replacingOccurrences(of: "\"", with: "&quot;")), "\(feed)")
    }
}
