import Foundation
import Testing
import BlogModel
@testable import BlogPages

/// The hashtag rule (`Hashtags`), and hashtags on the pages: links to the
/// tag's page, never markup from the text.
@Suite("Hashtags")
struct HashtagTests {
    private func html(_ text: String) -> String {
        var out: [UInt8] = []
        LinkedText.append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test(arguments: [
        ("#Swift", ["swift"]),
        ("Hello #swift and #Swift.", ["swift"]),
        ("(#one) [#two] \"#three\" '#four'", ["one", "two", "three", "four"]),
        ("#a-b_c- #x_", ["a-b_c", "x"]),
        ("#1 #2024 #_ #- ##x", []),
        ("#c3po #Café", ["c3po", "café"]),
        ("https://example.com/#frag https://x.org/a#b", []),
        ("word#tag x(#y &#39; a#b", []),
        ("#foo-https://example.com", []),
        ("line\n#next\t#tab", ["next", "tab"]),
    ])
    func theRule(_ text: String, _ tags: [String]) {
        #expect(Hashtags.tags(in: text) == tags)
    }

    @Test func boundsOnLengthAndCount() {
        let long = String(repeating: "a", count: Hashtags.maxLength)
        #expect(Hashtags.tags(in: "#\(long)") == [long])
        #expect(Hashtags.tags(in: "#\(long)b").isEmpty, "a longer word is no tag at all")
        let many = (0..<30).map { "#t\($0)" }.joined(separator: " ")
        #expect(Hashtags.tags(in: many).count == Hashtags.maxPerPost)
        #expect(Hashtags.tags(content: "#a", categories: ["b", "a"]) == ["a", "b"])
        // Past the 20th tag a hashtag is text, not a link to a page the post is not on.
        var out: [UInt8] = []
        LinkedText.append(many + " #t0", to: &out)
        let page = String(decoding: out, as: UTF8.self)
        #expect(page.components(separatedBy: "class=\"p-category\"").count - 1 == Hashtags.maxPerPost + 1)
        #expect(page.contains(" #t29") && !page.contains("href=\"tags/t29\""))
        let crowded = PostRecord(id: 1, userID: 1, title: "t", content: many, createdAt: Date(timeIntervalSince1970: 0),
                                 weight: 1, categories: ["extra"])
        #expect(!String(decoding: PageRenderer.fragment(crowded, user: "a"), as: UTF8.self).contains("tags/extra"))
    }

    @Test func categoriesAreNormalizedOrRefused() {
        #expect(Hashtags.normalized("#Swift") == "swift")
        #expect(Hashtags.normalized("Linux") == "linux")
        for bad in ["", "#", "a b", "https://x.org", "a.b", "<b>", "123", "x-", String(repeating: "a", count: 65)] {
            #expect(Hashtags.normalized(bad) == nil, "\(bad)")
        }
        #expect(Hashtags.parseList("a, B  #c a") == (["a", "b", "c"], []))
        #expect(Hashtags.parseList("ok not.ok").rejected == ["not.ok"])
    }

    @Test func hashtagsLinkToTheirTagPage() {
        #expect(html("Hi #Swift!") == "Hi <a class=\"p-category\" href=\"tags/swift\">#Swift</a>!")
        #expect(html("#Café") == "<a class=\"p-category\" href=\"tags/caf%C3%A9\">#Café</a>")
        #expect(html("see https://x.org/#a #b") == "see <a href=\"https://x.org/#a\">https://x.org/#a</a> "
                + "<a class=\"p-category\" href=\"tags/b\">#b</a>")
        #expect(html("<#x>") == "&lt;#x&gt;", "after markup characters it is text, and they are escaped")
        var out: [UInt8] = []
        LinkedText.append("#a", tagBase: "https://blog.example/", to: &out)
        #expect(String(decoding: out, as: UTF8.self).contains("href=\"https://blog.example/tags/a\""))
        #expect(LinkedText.count("x #tag y") == html("x #tag y").utf8.count, "a post's weight counts the links")
    }

    @Test func categoriesNotInTheTextMakeATagsLine() {
        let post = PostRecord(id: 7, userID: 1, title: "t", content: "about #swift", createdAt: Date(timeIntervalSince1970: 0),
                              weight: 1, categories: ["swift", "linux"])
        let fragment = String(decoding: PageRenderer.fragment(post, user: "alice"), as: UTF8.self)
        #expect(fragment.hasSuffix("</div><p class=\"tags\">Tags: <a class=\"p-category\" href=\"tags/linux\">#linux</a></p></article>"))
        var plain = post
        plain.categories = []
        #expect(String(decoding: PageRenderer.fragment(plain, user: "alice"), as: UTF8.self).hasSuffix("</div></article>"))
    }
}
