import BlogTestSupport
import BlogWire
import Foundation
import Testing
import BlogModel
@testable import BlogPages
@testable import BlogCore

/// A post's photos on its pages and in the feeds.
@Suite("Photo rendering")
struct PhotoRenderingTests {
    static let a = PostPhoto(name: String(repeating: "a", count: 32), width: 2048, height: 1536,
                             thumbnailWidth: 480, thumbnailHeight: 360)
    static let b = PostPhoto(name: String(repeating: "0123456789abcdef", count: 2), width: 900, height: 1200,
                             thumbnailWidth: 360, thumbnailHeight: 480)

    static func post(photos: [PostPhoto], place: Place? = nil, content: String = "Text") -> PostRecord {
        PostRecord(id: 17, userID: 1, title: "Title", content: content, createdAt: TestClock.start, place: place,
                   photos: photos)
    }

    static func thumbnail(_ photo: PostPhoto, base: String = "", alt: String = "") -> String {
        "<a href=\"\(base)photos/\(photo.name).jpg\"><img class=\"u-photo\" src=\"\(base)photos/\(photo.name).t.jpg\" "
            + "width=\"\(photo.thumbnailWidth)\" height=\"\(photo.thumbnailHeight)\" alt=\"\(alt)\" loading=\"lazy\"></a>"
    }

    static let described: PostPhoto = {
        var photo = a
        photo.alt = "A \"red\" door <b> & 'ajar'"
        return photo
    }()
    static let escapedAlt = "A &quot;red&quot; door &lt;b&gt; &amp; &#39;ajar&#39;"

    /// A photo's alt text is on the main page, the archives and the post's
    /// own page (one fragment for all), in the feed and on the map list,
    /// escaped, so it cannot leave its attribute.
    @Test func altTextIsShownEscapedOnEveryPageAndFeed() throws {
        let line = text(PageRenderer.fragment(Self.post(photos: [Self.described]), user: "alice"))
        #expect(line.contains(Self.thumbnail(Self.a, alt: Self.escapedAlt)), "\(line)")
        let feed = text(Feeds(baseURL: "https://example.org/").blog("alice", created: TestClock.start,
                                                                   posts: [Self.post(photos: [Self.described])]))
        var html: [UInt8] = []
        AtomFeed.appendEscaped(Array(Self.thumbnail(Self.a, base: "https://example.org/", alt: Self.escapedAlt).utf8), to: &html)
        #expect(feed.contains(text(html)), "\(feed)")
        let placed = Self.post(photos: [Self.described], place: try Place(latitude: "50.08", longitude: "14.42"))
        let map = text(MapPage.render(user: "alice", posts: [placed]))
        #expect(map.contains("<a href=\"alice/17.html\"><img src=\"photos/\(Self.a.name).t.jpg\" width=\"96\" height=\"72\" "
                             + "alt=\"\(Self.escapedAlt)\" loading=\"lazy\"> Title</a>"), "\(map)")
        #expect(!line.contains("<b>") && !map.contains("<b>"))
        #expect(PageRenderer.weight(photos: [Self.described]) == PageRenderer.weight(photos: [Self.a]) + Self.escapedAlt.utf8.count,
                "the alt text weighs what it adds")
    }

    /// The column keeps alt texts of any kind exactly; older columns (no
    /// alt) read as before.
    @Test func altTextSurvivesTheColumn() {
        var hostile = Self.b
        hostile.alt = "a b:c%20d 100% ü 🚪 \"x\""
        let photos = [Self.described, Self.a, hostile]
        let column = PostPhoto.columnText(photos)
        #expect(!column.contains("  ") && column.split(separator: " ").count == 3)
        #expect(PostPhoto.photos(columnText: column) == photos)
        #expect(PostPhoto.photos(columnText: "\(Self.a.name):2048:1536:480:360") == [Self.a])
    }

    @Test func altTextRule() throws {
        #expect(try PostPhoto.checkedAlt("  A red\n\tdoor \r\n ") == "A red door")
        #expect(try PostPhoto.checkedAlt("") == "")
        #expect(throws: AltTextError.controlCharacters) { try PostPhoto.checkedAlt("bell\u{7}") }
        #expect(throws: AltTextError.controlCharacters) { try PostPhoto.checkedAlt("nul\u{0}") }
        #expect(try PostPhoto.checkedAlt(String(repeating: "é", count: PostPhoto.maxAltCharacters)).count
                == PostPhoto.maxAltCharacters)
        #expect(throws: AltTextError.tooLong) {
            try PostPhoto.checkedAlt(String(repeating: "é", count: PostPhoto.maxAltCharacters + 1))
        }
    }

    @Test func photosComeBeforeTheTextAfterThePlace() throws {
        let place = try Place(latitude: "50.08", longitude: "14.42")
        let line = text(PageRenderer.fragment(Self.post(photos: [Self.b, Self.a], place: place), user: "alice"))
        let figure = "<figure class=\"photos\">" + Self.thumbnail(Self.b) + Self.thumbnail(Self.a) + "</figure>"
        #expect(line.contains("all places</a></p>" + figure + "<div class=\"content e-content\">Text</div>"), "\(line)")
        #expect(!line.contains("\n"), "a post stays one line")
        let plain = text(PageRenderer.fragment(Self.post(photos: []), user: "alice"))
        #expect(!plain.contains("<figure"), "no photos, no figure")
    }

    /// A name is checked before it is stored; one changed by hand still
    /// cannot break out of its attribute.
    @Test func namesAreEscaped() {
        let hostile = PostPhoto(name: "\"><script>x</script>", width: 1, height: 1, thumbnailWidth: 1, thumbnailHeight: 1)
        let line = text(PageRenderer.fragment(Self.post(photos: [hostile]), user: "alice"))
        #expect(!line.contains("<script>"))
        #expect(line.contains("photos/&quot;&gt;&lt;script&gt;x&lt;/script&gt;.t.jpg"))
    }

    /// The weight of the photos is exactly what they add to a post's
    /// fragment, so page groups keep to their byte limit.
    @Test(arguments: [[PostPhoto](), [a], [a, b], [b, a, b, a]])
    func weightIsWhatThePhotosAdd(_ photos: [PostPhoto]) {
        let with = PageRenderer.fragment(Self.post(photos: photos, content: "a < b\nc"), user: "alice").count
        let without = PageRenderer.fragment(Self.post(photos: [], content: "a < b\nc"), user: "alice").count
        #expect(with - without == PageRenderer.weight(photos: photos))
        #expect(PageRenderer.weight(title: "Title", content: "a < b\nc", photos: photos)
                == PageRenderer.weight(title: "Title", content: "a < b\nc") + PageRenderer.weight(photos: photos))
        #expect(Self.post(photos: photos, content: "a < b\nc").weight
                == PageRenderer.weight(title: "Title", content: "a < b\nc", photos: photos), "a record's own weight")
    }

    /// The links are relative to the public folder's top: as they are on
    /// the main page, and through the post page's `<base href="../">`.
    @Test func linksResolveToThePhotoFolderFromEveryPage() throws {
        let fragment = PageRenderer.fragment(Self.post(photos: [Self.a]), user: "alice")
        let site = try #require(URL(string: "https://example.org/blog/"))
        let pages: [(file: String, bytes: [UInt8])] = [
            (PageRenderer.mainFile(user: "alice"), PageRenderer.mainPage(user: "alice", fragments: [fragment], olderArchive: nil)),
            (PageRenderer.archiveFile(user: "alice", number: 2), PageRenderer.archivePage(user: "alice", number: 2, fragments: [fragment])),
            (PageRenderer.postFile(user: "alice", id: 17), PageRenderer.postPage(user: "alice", title: "Title", fragment: fragment,
                                                                                 older: nil, newer: nil)),
        ]
        for page in pages {
            let html = text(page.bytes)
            var base = try #require(URL(string: page.file, relativeTo: site))
            if let href = html.firstMatch(of: /<base href="([^"]*)">/)?.1 {
                base = try #require(URL(string: String(href), relativeTo: base))
            }
            let src = try #require(html.firstMatch(of: /<img class="u-photo" src="([^"]*)"/)?.1)
            let link = try #require(html.firstMatch(of: /<a href="(photos\/[^"]*)"/)?.1)
            #expect(URL(string: String(src), relativeTo: base)?.absoluteString
                    == "https://example.org/blog/photos/\(Self.a.name).t.jpg", "\(page.file)")
            #expect(URL(string: String(link), relativeTo: base)?.absoluteString
                    == "https://example.org/blog/photos/\(Self.a.name).jpg", "\(page.file)")
        }
    }

    /// A feed's entry shows the photos as its page does, with absolute
    /// links, escaped into the content.
    @Test func feedEntriesCarryAbsolutePhotos() {
        let feed = text(Feeds(baseURL: "https://example.org/blog").blog("alice", created: TestClock.start,
                                                                       posts: [Self.post(photos: [Self.a])]))
        var html: [UInt8] = []
        AtomFeed.appendEscaped(Array(("<figure class=\"photos\">" + Self.thumbnail(Self.a, base: "https://example.org/blog/")
                                      + "</figure>Text").utf8), to: &html)
        #expect(feed.contains("<content type=\"html\">" + text(html) + "</content>"), "\(feed)")
    }
}
