import BlogWire
import Foundation
import Testing
import BlogTestSupport
import BlogModel
@testable import BlogPages
@testable import BlogCore

@Suite("Atom feed")
struct AtomFeedTests {
    // MARK: Inputs

    /// 2026-11-25T18:42:26.123Z.
    static let moment = Date(timeIntervalSince1970: 1_795_632_146.123)

    static func entry(_ number: Int, title: String = "Title", author: String = "alice",
                      content: String = "Text", published: Date = moment, updated: Date? = nil,
                      place: Place? = nil, photos: [PostPhoto] = []) -> AtomFeed.Entry {
        AtomFeed.Entry(id: "tag:example.org,2026:post-\(number)", title: title, author: author,
                       link: "https://example.org/alice.html#post-\(number)", content: content,
                       published: published, updated: updated ?? published, place: place,
                       photos: photos, siteURL: "https://example.org/")
    }

    static func photo(_ digit: Character, thumbnail: (Int, Int) = (480, 360), alt: String = "") -> PostPhoto {
        PostPhoto(name: String(repeating: digit, count: 32), width: 2048, height: 1536,
                  thumbnailWidth: thumbnail.0, thumbnailHeight: thumbnail.1, alt: alt)
    }

    static func place(_ latitude: String, _ longitude: String) -> Place {
        try! Place(latitude: latitude, longitude: longitude)
    }

    /// One feed to render and check, with what a reader must read back.
    struct FeedCase: Sendable {
        var name: String
        var id = "tag:example.org,2026:alice"
        var title = "alice – blog"
        var selfURL = "https://example.org/alice.atom"
        var alternateURL = "https://example.org/alice.html"
        var updated = AtomFeedTests.moment
        var entries: [AtomFeed.Entry] = []

        func render() -> [UInt8] {
            AtomFeed.render(id: id, title: title, selfURL: selfURL, alternateURL: alternateURL,
                            updated: updated, entries: entries)
        }
    }

    static let hostile = "<script>alert(\"x\")</script> ]]> &amp; 'single' \"double\" "
        + "nul\u{0}bell\u{7}bs\u{8}vt\u{B}ff\u{C}so\u{E}us\u{1F}del\u{7F}c1\u{81}\u{85}\u{9F} "
        + "nonchars\u{FFFE}\u{FFFF} fine\u{FFFD}\u{FFFC}\u{FF01}\u{FEFF}\u{10FFFF} "
        + "emoji 👩🏽‍💻🇨🇿 rtl שלום עולם \u{202E}abc\u{202C} مرحبا tab\tcr\rcrlf\r\nlf\n"

    static let cases: [FeedCase] = [
        FeedCase(name: "empty", updated: Date(timeIntervalSince1970: 0)),
        FeedCase(name: "one", entries: [entry(1, content: "First line\nSecond line")]),
        FeedCase(name: "twenty-long", updated: moment.addingTimeInterval(19),
                 entries: (0..<20).reversed().map { index in
                     entry(index, title: "Post \(index)", content: longText(seed: index),
                           published: moment.addingTimeInterval(Double(index)),
                           updated: moment.addingTimeInterval(Double(index) + 0.5))
                 }),
        FeedCase(name: "hostile", id: "tag:example.org,2026:<&>\"'", title: hostile,
                 selfURL: "https://example.org/feed?a=1&b=\"2\"&c='3'<>",
                 alternateURL: "https://example.org/page?x=]]>&y=&amp;",
                 entries: [
                     entry(1, title: hostile, author: hostile, content: hostile),
                     entry(2, title: "  spaces around  ", author: "O'Brien \"Bob\"", content: "  indented\n\n\ttabbed  "),
                     entry(3, title: "", content: ""),
                     entry(4, title: "]]>]]]]><![CDATA[x]]>", content: "<![CDATA[ ]]> &lt;b&gt; &#0; &#xFFFE;"),
                 ]),
        // GeoRSS points beside posts without one; the extreme corners.
        FeedCase(name: "places", entries: [
            entry(3, title: "Prague", place: place("50.0874654", "14.4212535")),
            entry(2, title: "nowhere"),
            entry(1, title: "south-west", place: place("-90", "-180")),
        ]),
        // Photos before the text, absolute; with a place, and beside posts without.
        FeedCase(name: "photos", entries: [
            entry(3, title: "four", content: "a < b\nc", photos: [photo("a"), photo("b", thumbnail: (360, 480)), photo("c"), photo("d")]),
            entry(2, title: "none"),
            entry(1, title: "placed", content: "", place: place("50.0874654", "14.4212535"), photos: [photo("0")]),
        ]),
        // Alt texts, hostile ones too, escaped into the content.
        FeedCase(name: "alt", entries: [
            entry(2, title: "described", photos: [photo("e", alt: "A red door, ajar")]),
            entry(1, title: "hostile", photos: [photo("f", alt: hostile), photo("0", alt: "\"><script>x</script>")]),
        ]),
        FeedCase(name: "long-hostile", entries: [entry(1, title: "\"quoted\" & 'apostrophe'",
                                                       content: String(repeating: hostile, count: 64 * 1024 / hostile.utf8.count + 1))]),
    ]

    /// About 64 KB of text, with lines, markup-like text and non-ASCII.
    static func longText(seed: Int) -> String {
        let line = "Line \(seed): a < b && c > d, \"quoted\", café, ελληνικά, 漢字, 🙂.\n"
        return String(repeating: line, count: 64 * 1024 / line.utf8.count + 1)
    }

    // MARK: What readers must read back

    /// What XML 1.0 can carry of `text`: the renderer's promise is U+FFFD
    /// for every character XML 1.0 forbids, and everything else unchanged.
    static func xmlSafe(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x9, 0xA, 0xD: scalars.append(scalar)
            case 0...0x1F, 0xFFFE, 0xFFFF: scalars.append("\u{FFFD}")
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The sidecar check_feed.py compares with what expat and feedparser
    /// read (keys in snake case, dates in milliseconds since 1970).
    struct Expected: Encodable {
        struct Entry: Encodable {
            var id, title, author, link, contentHtml: String
            var publishedMs, updatedMs: Int64
            /// GeoRSS `LAT LON`, or nil with no place.
            var point: String?
        }
        var id, title, selfURL, alternateURL: String
        var updatedMs: Int64
        var entries: [Entry]

        enum CodingKeys: String, CodingKey {
            case id, title, selfURL = "self", alternateURL = "alternate", updatedMs, entries
        }

        init(_ feed: FeedCase) {
            id = xmlSafe(feed.id)
            title = xmlSafe(feed.title)
            selfURL = xmlSafe(feed.selfURL)
            alternateURL = xmlSafe(feed.alternateURL)
            updatedMs = millis(feed.updated)
            entries = feed.entries.map { entry in
                // The page's HTML of the post, as the contract says.
                var html: [UInt8] = []
                PageRenderer.appendPhotos(entry.photos, base: entry.siteURL, to: &html)
                HTMLEscape.appendMultiline(entry.content, to: &html)
                return Entry(id: xmlSafe(entry.id), title: xmlSafe(entry.title), author: xmlSafe(entry.author),
                             link: xmlSafe(entry.link), contentHtml: xmlSafe(String(decoding: html, as: UTF8.self)),
                             publishedMs: millis(entry.published), updatedMs: millis(entry.updated),
                             point: entry.place.map { "\($0.latitude) \($0.longitude)" })
            }
        }
    }

    // MARK: Validation with outside tools

    /// Every feed against RFC 4287's RELAX NG schema (jing) and feedparser,
    /// through Tests/FeedCheck/check_feed.py, in one run: the JVM's start
    /// costs more than the checks.
    @Test func outsideToolsAcceptEveryFeedAndReadBackItsInputs() throws {
        try withTemporaryFolder { folder in
            var paths: [String] = []
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.keyEncodingStrategy = .convertToSnakeCase
            for feed in Self.cases {
                let xml = folder.appendingPathComponent("\(feed.name).xml")
                try Data(feed.render()).write(to: xml)
                try encoder.encode(Expected(feed))
                    .write(to: folder.appendingPathComponent("\(feed.name).expected.json"))
                paths.append(xml.path)
            }
            let (status, output) = try checkFeeds(paths)
            #expect(status == 0, "check_feed.py failed:\n\(output)")
        }
    }

    // MARK: Shape, in Swift

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func emptyFeedHasTheRequiredFeedElements() {
        let feed = Self.text(FeedCase(name: "empty").render())
        #expect(feed.hasPrefix("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n"))
        #expect(feed.hasSuffix("</feed>\n"))
        #expect(feed.contains("<id>tag:example.org,2026:alice</id>"))
        #expect(feed.contains("<title type=\"text\">alice – blog</title>"))
        #expect(feed.contains("<updated>2026-11-25T18:42:26.123Z</updated>"))
        #expect(feed.contains("<link rel=\"self\" type=\"application/atom+xml\" href=\"https://example.org/alice.atom\"/>"))
        #expect(feed.contains("<link rel=\"alternate\" type=\"text/html\" href=\"https://example.org/alice.html\"/>"))
        #expect(!feed.contains("<entry>"))
    }

    @Test func entryCarriesEveryPromisedElement() {
        let published = Date(timeIntervalSince1970: 1_795_373_225)
        let feed = Self.text(FeedCase(name: "one", entries: [
            Self.entry(17, content: "x", published: published, updated: Self.moment),
        ]).render())
        for line in ["<entry>", "<id>tag:example.org,2026:post-17</id>", "<title type=\"text\">Title</title>",
                     "<link rel=\"alternate\" type=\"text/html\" href=\"https://example.org/alice.html#post-17\"/>",
                     "<published>2026-11-22T18:47:05.000Z</published>", "<updated>2026-11-25T18:42:26.123Z</updated>",
                     "<author>", "<name>alice</name>", "</author>", "<content type=\"html\">x</content>", "</entry>"] {
            #expect(feed.contains(line), "\(line)")
        }
    }

    @Test func entriesKeepTheGivenOrder() {
        let feed = Self.text(FeedCase(name: "order", entries: [Self.entry(3), Self.entry(1), Self.entry(2)]).render())
        let positions = [3, 1, 2].map { feed.range(of: "post-\($0)</id>")!.lowerBound }
        #expect(positions == positions.sorted())
    }

    @Test func contentIsThePageHTMLEscapedOnceMore() {
        let feed = Self.text(FeedCase(name: "html", entries: [Self.entry(1, content: "a < b & \"c\"\nd\r\ne")]).render())
        // The page shows `a &lt; b &amp; &quot;c&quot;<br>d<br>e`; the feed
        // carries that HTML as text.
        #expect(feed.contains("<content type=\"html\">a &amp;lt; b &amp;amp; &amp;quot;c&amp;quot;&lt;br&gt;d&lt;br&gt;e</content>"))
    }

    @Test func hostileTextCannotBreakTheDocument() {
        let bytes = FeedCase(name: "hostile", title: Self.hostile,
                             entries: [Self.entry(1, title: Self.hostile, author: Self.hostile, content: Self.hostile)]).render()
        let feed = Self.text(bytes)
        #expect(!feed.contains("<script"))
        #expect(!feed.contains("]]>"))
        #expect(feed.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; ]]&gt; &amp;amp; &apos;single&apos;"))
        // XML 1.0 cannot carry these at all, not even as references.
        #expect(!bytes.contains { $0 < 0x20 && $0 != 0x0A })
        #expect(!feed.unicodeScalars.contains { $0 == "\u{FFFE}" || $0 == "\u{FFFF}" })
        #expect(feed.contains("nul\u{FFFD}bell\u{FFFD}bs\u{FFFD}vt\u{FFFD}ff\u{FFFD}so\u{FFFD}us\u{FFFD}del\u{7F}"))
        #expect(feed.contains("nonchars\u{FFFD}\u{FFFD} fine\u{FFFD}\u{FFFC}\u{FF01}\u{FEFF}\u{10FFFF} "))
        // Tab and line breaks survive a parser's normalisation as references.
        #expect(feed.contains("tab&#9;cr&#13;crlf&#13;&#10;lf&#10;</title>"))
        #expect(feed.contains("👩🏽‍💻🇨🇿 rtl שלום עולם \u{202E}abc\u{202C} مرحبا"))
        // The only raw line breaks are the renderer's own, one per element.
        #expect(feed.split(separator: "\n").allSatisfy { $0.hasPrefix("<") || $0.hasPrefix(" ") })
    }

    @Test func sameInputsSameBytes() {
        for feed in Self.cases {
            #expect(feed.render() == feed.render(), "\(feed.name)")
        }
    }

    @Test(arguments: [
        (1_795_632_146.123, "2026-11-25T18:42:26.123Z"),
        (1_795_632_146.0, "2026-11-25T18:42:26.000Z"),
        (1_795_632_146.9996, "2026-11-25T18:42:27.000Z"),
        (1_795_632_146.0004, "2026-11-25T18:42:26.000Z"),
        (0, "1970-01-01T00:00:00.000Z"),
        (-0.5, "1969-12-31T23:59:59.500Z"),
        (951_782_400.001, "2000-02-29T00:00:00.001Z"),
        (253_402_300_799.999, "9999-12-31T23:59:59.999Z"),
    ])
    func datesAreRFC3339InUTCWithMilliseconds(seconds: Double, expected: String) {
        var out: [UInt8] = []
        AtomFeed.appendTimestamp(Date(timeIntervalSince1970: seconds), to: &out)
        #expect(Self.text(out) == expected)
    }

    @Test func millisecondsSurviveBinaryFractions() {
        // Every millisecond of a second: none may come out one lower
        // because the Double holds .x99999… .
        for millis in 0..<1000 {
            var out: [UInt8] = []
            AtomFeed.appendTimestamp(Date(timeIntervalSince1970: 1_795_632_146 + Double(millis) / 1000), to: &out)
            #expect(Self.text(out).hasSuffix(String(format: ".%03dZ", millis)), "\(millis)")
        }
    }

    @Test func twentyLongEntriesRenderInLinearTime() {
        let feed = Self.cases.first { $0.name == "twenty-long" }!
        let contentBytes = feed.entries.reduce(0) { $0 + $1.content.utf8.count }
        #expect(contentBytes >= 20 * 64 * 1024)
        var short = feed
        short.entries = feed.entries.map { entry in
            var entry = entry
            entry.content = String(entry.content.prefix(4 * 1024))
            return entry
        }
        // Sixteen times the text must cost about sixteen times the time, not
        // 256: compared with itself, so a slow debug build on a busy machine
        // does not matter; the fastest of a few runs, to leave out pauses.
        func fastest(_ runs: Int, _ feed: FeedCase) -> (Duration, [UInt8]) {
            var best = Duration.seconds(3600)
            var bytes: [UInt8] = []
            for _ in 0..<runs { best = min(best, ContinuousClock().measure { bytes = feed.render() }) }
            return (best, bytes)
        }
        let (shortTime, _) = fastest(5, short)
        let (longTime, bytes) = fastest(5, feed)
        // Each `<`, `>`, `&` and `"` of the text is escaped twice over.
        #expect(bytes.count > contentBytes && bytes.count < contentBytes * 4)
        #expect(longTime < shortTime * 64, "\(longTime) for 64 KB entries, \(shortTime) for 4 KB")
    }
}
