import BlogTestSupport
import BlogWire
import Foundation
import Testing
import BlogModel
@testable import BlogPages
@testable import BlogCore

/// Every kind of page blogd writes, parsed by mf2py (the microformats2
/// reference parser, through Tests/Microformats/mf2_dump.py): a blog's main
/// and archive pages are an `h-feed` with the author's `h-card` and the
/// posts' `h-entry`s, a post's page the post's `h-entry` (photo with alt,
/// place, dates, author), the index an `h-card` per blog; values checked,
/// not only presence.
@Suite("Microformats (mf2py)", .enabled(if: Mf2Python.runs, "mf2py not importable by BLOGD_PYTHON; skipped"))
struct MicroformatsTests {
    static let site = "http://localhost/"

    @Test func everyKindOfPageParsesIntoItsMicroformats() throws {
        try withService(pageSize: 2) { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "192.0.2.10")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            try fx.service.setBlogSettings(try BlogSettings(title: "Alice's <Notes>", description: "Walks & bread",
                                                            authorName: "Alice A.", authorPhoto: "photos/me.jpg"),
                                           of: "alice")
            let photo = testPhoto()
            #expect(fx.service.storePhoto(photo, image: fakeJPEG(3_000), thumbnail: fakeJPEG(400), for: user("alice"),
                                          session: session) == .posted)
            let published = fx.clock.now
            let placed = fx.service.outcome(of: try Request(message: bytes("geopost:alice:48.1374:11.5755:A door:Red\nand old")),
                                            extras: PostExtras(photos: [PhotoAttachment(name: photo.name, alt: "A red door")]),
                                            session: &session)
            let first = try #require(placed.postID)
            for title in ["Two", "Three", "Four", "Five"] {
                fx.clock.advance(by: 60)
                #expect(fx.send("newpost:alice:\(title):Text of \(title)", &session) == .posted)
            }
            fx.clock.advance(by: 3_600)
            let edited = fx.clock.now
            #expect(fx.send("editpost:alice:\(first):A red door:Red\nand old", &session) == .edited)
            fx.service.writeIndex()

            let parsed = try Mf2Python.parse([
                "main": (Self.site + "alice.html", fx.publicFolder.appendingPathComponent("alice.html")),
                "archive": (Self.site + "alice.1.html", fx.publicFolder.appendingPathComponent("alice.1.html")),
                "post": (Self.site + "alice/\(first).html", fx.publicFolder.appendingPathComponent("alice/\(first).html")),
                "index": (Self.site + "index.html", fx.publicFolder.appendingPathComponent("index.html")),
            ])

            // The main page: the feed, its name, summary and author, its newest posts.
            let main = try #require(parsed["main"]?.items.first)
            #expect(main.type == ["h-feed"])
            #expect(main.strings("name") == ["Alice's <Notes>"])
            #expect(main.strings("summary") == ["Walks & bread"])
            let card = try #require(main.items("author").first)
            #expect(card.type == ["h-card"])
            #expect(card.strings("name") == ["Alice A."])
            #expect(card.strings("url") == [Self.site + "alice.html"])
            #expect(card.photos("photo").map(\.url) == [Self.site + "photos/me.jpg"])
            #expect(main.children.map(\.type) == Array(repeating: ["h-entry"], count: main.children.count))
            #expect(main.children.flatMap { $0.strings("name") } == ["Five", "Four", "Three"])
            #expect(main.children.first?.strings("content") == ["Text of Five"])

            // The archive page: the oldest group, the same feed and author.
            let archive = try #require(parsed["archive"]?.items.first)
            #expect(archive.type == ["h-feed"])
            #expect(archive.strings("name") == ["Alice's <Notes> · archive 1"])
            #expect(archive.items("author").first?.strings("name") == ["Alice A."])
            #expect(archive.children.flatMap { $0.strings("name") } == ["Two", "A red door"])
            #expect(archive.children.last?.strings("url") == [Self.site + "alice/\(first).html"])

            // The post's page: its entry, whole.
            let postPage = try #require(parsed["post"])
            #expect(postPage.items.count == 1)
            let entry = try #require(postPage.items.first)
            #expect(entry.type == ["h-entry"])
            #expect(entry.strings("name") == ["A red door"])
            #expect(entry.strings("content") == ["Red\nand old"])
            #expect(entry.strings("published") == [PostDate.machine(published)])
            #expect(entry.strings("updated") == [PostDate.machine(edited)])
            #expect(entry.strings("url") == [Self.site + "alice/\(first).html"])
            #expect(entry.photos("photo").map(\.url) == [Self.site + photo.thumbnailFile])
            #expect(entry.photos("photo").map(\.alt) == ["A red door"])
            let location = try #require(entry.items("location").first)
            #expect(location.type == ["h-geo"])
            #expect(location.strings("latitude") == ["48.1374"])
            #expect(location.strings("longitude") == ["11.5755"])
            let author = try #require(entry.items("author").first)
            #expect(author.type == ["h-card"])
            #expect(author.strings("name") == ["Alice A."])
            #expect(author.strings("url") == [Self.site + "alice.html"])
            #expect(author.photos("photo").map(\.url) == [Self.site + "photos/me.jpg"])
            #expect(postPage.rels["canonical"] == [Self.site + "alice/\(first).html"])

            // The index: a card per blog.
            let index = try #require(parsed["index"])
            #expect(index.items.map(\.type) == [["h-card"]])
            #expect(index.items.first?.strings("name") == ["alice"])
            #expect(index.items.first?.strings("url") == [Self.site + "alice.html"])
        }
    }

    /// A blog with no settings still is an h-feed, its author named by the
    /// user's name, with no photo.
    @Test func aBlogWithoutSettingsNamesItsUser() throws {
        try withService { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "192.0.2.10")
            #expect(fx.send("register:bob:pw", &session) == .registered)
            #expect(fx.send("newpost:bob:Hello:World", &session) == .posted)
            let parsed = try Mf2Python.parse(["main": (Self.site + "bob.html", fx.publicFolder.appendingPathComponent("bob.html"))])
            let feed = try #require(parsed["main"]?.items.first)
            #expect(feed.type == ["h-feed"])
            #expect(feed.strings("name") == ["bob"])
            #expect(feed.strings("summary") == [])
            #expect(feed.items("author").first?.strings("name") == ["bob"])
            #expect(feed.items("author").first?.photos("photo").isEmpty == true)
            #expect(feed.children.flatMap { $0.strings("name") } == ["Hello"])
        }
    }
}

/// mf2py, run by the interpreter `BLOGD_PYTHON` names (else
/// `/usr/bin/python3`) on Tests/Microformats/mf2_dump.py.
enum Mf2Python {
    static var interpreter: String {
        ProcessInfo.processInfo.environment["BLOGD_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin/python3"
    }

    static let script = repositoryRoot.appendingPathComponent("Tests/Microformats/mf2_dump.py").path

    /// Whether the tests run: mf2py imports, or `BLOGD_REQUIRE_PY_TOOLS=1`
    /// makes them run (and fail) without it.
    static let runs: Bool = {
        if ProcessInfo.processInfo.environment["BLOGD_REQUIRE_PY_TOOLS"] == "1" { return true }
        return (try? tool(interpreter, [script, "--check"]).status) == 0
    }()

    /// One parsed page: its top-level items and its rels.
    struct Page {
        var items: [Item]
        var rels: [String: [String]]
    }

    /// Parses each page (`key`: its URL and its file) in one run.
    static func parse(_ pages: [String: (url: String, file: URL)]) throws -> [String: Page] {
        let keys = pages.keys.sorted()
        let arguments = keys.flatMap { [pages[$0]!.url, pages[$0]!.file.path] }
        let (status, output) = try tool(interpreter, [script] + arguments)
        guard status == 0 else { throw Failure(text: "mf2_dump.py exited \(status) (BLOGD_PYTHON=\(interpreter))") }
        guard let json = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else {
            throw Failure(text: "mf2_dump.py printed no object: \(output.prefix(200))")
        }
        var result: [String: Page] = [:]
        for key in keys {
            let page = json[pages[key]!.url] as? [String: Any] ?? [:]
            result[key] = Page(items: (page["items"] as? [[String: Any]] ?? []).map(Item.init),
                               rels: page["rels"] as? [String: [String]] ?? [:])
        }
        return result
    }

    struct Failure: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    /// A microformats2 item as mf2py gives it.
    struct Item {
        var json: [String: Any]
        init(_ json: [String: Any]) { self.json = json }

        var type: [String] { json["type"] as? [String] ?? [] }
        var children: [Item] { (json["children"] as? [[String: Any]] ?? []).map(Item.init) }
        private var properties: [String: [Any]] { json["properties"] as? [String: [Any]] ?? [:] }

        /// The property's plain values (an e-* property's text value).
        func strings(_ name: String) -> [String] {
            (properties[name] ?? []).compactMap { value in
                if let text = value as? String { return text }
                return (value as? [String: Any])?["value"] as? String
            }
        }

        /// The property's nested items.
        func items(_ name: String) -> [Item] {
            (properties[name] ?? []).compactMap { ($0 as? [String: Any]).flatMap { $0["type"] == nil ? nil : Item($0) } }
        }

        /// A u-photo's URLs and alt texts.
        func photos(_ name: String) -> [(url: String, alt: String?)] {
            (properties[name] ?? []).compactMap { value in
                if let url = value as? String { return (url, nil) }
                guard let object = value as? [String: Any], let url = object["value"] as? String else { return nil }
                return (url, object["alt"] as? String)
            }
        }
    }
}
