import BlogApp
import BlogCore
import BlogTestSupport
import BlogWeb
import BlogWire
import Foundation
import HTTPTypes
import Testing
import BlogModel

/// The web client's post forms and photos: alt text on a new post, and an
/// edit that changes the alt text, replaces or removes the photo, and sets,
/// changes or removes the place; the pages, the feed and the map follow at
/// once, and a photo taken off leaves the public folder.
@Suite
struct PhotoEditTests {
    let app: AppFixture
    let browser: AppFixture.Browser

    init() throws {
        app = try AppFixture()
        browser = AppFixture.Browser(app.client)
        browser.signIn("alice", "pw")
    }

    func send(_ path: String, _ fields: [(String, String)], photo: [UInt8]? = nil) -> WebResponse {
        let (type, body) = PhotoUploadTests.multipart([("csrf", browser.csrf)] + fields,
                                                      files: photo.map { [("photo", "camera.jpg", "image/jpeg", $0)] } ?? [])
        return browser.send(.post, path, body: body, extra: [.contentType: type, .origin: "https://blog.example"])
    }

    func post() throws -> PostRecord {
        let owner = try #require(try app.blog.store.user(named: "alice"))
        return try #require(try app.blog.store.posts(ofUserID: owner.id).first)
    }

    func onDisk(_ photo: PostPhoto) -> Bool {
        [photo.file, photo.thumbnailFile].allSatisfy {
            FileManager.default.fileExists(atPath: app.blog.publicFolder.appendingPathComponent($0).path)
        }
    }

    /// A post with a photo described as `alt`, through the new post form.
    func publish(_ bytes: [UInt8], alt: String) throws -> PostRecord {
        #expect(send("/app/posts", [("title", "Door"), ("content", "Look"), ("alt", alt)], photo: bytes).status == .seeOther)
        return try post()
    }

    @Test func theNewPostFormKeepsTheAltText() throws {
        guard let bytes = try PhotoUploadTests.photo(in: app.blog.folder) else { return }
        #expect(browser.get("/app/").text.contains("name=\"alt\""))
        let published = try publish(bytes, alt: "  A red\ndoor <b> ")
        #expect(published.photos.map(\.alt) == ["A red door <b>"])
        for page in ["alice.html", "alice/\(published.id).html"] {
            #expect(app.file(page)?.contains("alt=\"A red door &lt;b&gt;\"") == true, "\(page)")
        }
        // A new post's feed is written in the background: now, for the check.
        app.blog.service.writeIndex()
        #expect(app.file("alice.atom")?.contains("alt=&quot;A red door &amp;lt;b&amp;gt;&quot;") == true)
        // A hostile one is refused, the typed text kept, nothing stored.
        let refused = send("/app/posts", [("title", "Bell"), ("content", "kept"), ("alt", "ding\u{7}")], photo: bytes)
        #expect(refused.status == .badRequest && refused.text.contains("kept"))
        #expect(try post().id == published.id)
    }

    @Test func anEditChangesTheAltTextAndThePlace() throws {
        guard let bytes = try PhotoUploadTests.photo(in: app.blog.folder) else { return }
        let before = try publish(bytes, alt: "old")
        let photo = try #require(before.photos.first)
        let form = browser.get("/app/posts/\(before.id)/edit").text
        #expect(form.contains("enctype=\"multipart/form-data\"") && form.contains("name=\"alt-\(photo.name)\" ")
                && form.contains("name=\"remove-\(photo.name)\"") && form.contains("name=\"latitude\""))
        #expect(form.contains("value=\"old\""))

        let path = "/app/posts/\(before.id)/edit"
        #expect(send(path, [("title", "Door"), ("content", "Look"), ("alt-\(photo.name)", "A green door"),
                            ("latitude", "50.08"), ("longitude", "14.42")]).status == .seeOther)
        var now = try post()
        #expect(now.photos.map(\.alt) == ["A green door"] && now.photos.map(\.name) == [photo.name])
        #expect(now.place == (try Place(latitude: "50.08", longitude: "14.42")))
        #expect(app.file("alice/\(now.id).html")?.contains("alt=\"A green door\"") == true)
        #expect(app.file("alice.html")?.contains("alt=\"A green door\"") == true)
        #expect(app.file("alice.map.html")?.contains("alt=\"A green door\"") == true, "the map follows at once")
        #expect(browser.get(path).text.contains("value=\"50.08\""), "the form shows the place")

        #expect(send(path, [("title", "Door"), ("content", "Look"), ("alt-\(photo.name)", "A green door"),
                            ("latitude", "48.8584"), ("longitude", "2.2945")]).status == .seeOther)
        #expect(try post().place?.latitude == "48.8584")
        #expect(send(path, [("title", "Door"), ("content", "Look"), ("alt-\(photo.name)", "A green door"),
                            ("latitude", ""), ("longitude", "")]).status == .seeOther)
        now = try post()
        #expect(now.place == nil && now.photos.map(\.name) == [photo.name])
        #expect(app.file("alice.map.html") == nil, "no placed post, no map page")

        // Bad input: a clear error, the form kept, nothing changed.
        let refused = send(path, [("title", "Door"), ("content", "Changed"), ("alt-\(photo.name)", "x\u{1}"),
                                  ("latitude", "95"), ("longitude", "0")])
        #expect(refused.status == .badRequest && refused.text.contains("Changed"))
        #expect(send(path, [("title", "Door"), ("content", "Changed"), ("alt-\(photo.name)", "x\u{1}")]).status == .badRequest)
        #expect(try post() == now)
    }

    @Test func anEditReplacesOrRemovesThePhoto() throws {
        guard let bytes = try PhotoUploadTests.photo(in: app.blog.folder) else { return }
        let before = try publish(bytes, alt: "old")
        let old = try #require(before.photos.first)
        let path = "/app/posts/\(before.id)/edit"
        #expect(onDisk(old))

        #expect(send(path, [("title", "Door"), ("content", "Look"), ("alt-\(old.name)", "old"), ("alt", "the new one")],
                     photo: bytes).status == .seeOther)
        let replaced = try post()
        let new = try #require(replaced.photos.first)
        #expect(replaced.photos.count == 1 && new.name != old.name && new.alt == "the new one")
        #expect(!onDisk(old) && onDisk(new), "the old photo's files leave the public folder")
        #expect(try app.blog.store.photoData(name: old.name) == nil, "and its row goes")
        for page in ["alice.html", "alice/\(before.id).html", "alice.atom"] {
            let text = try #require(app.file(page))
            #expect(text.contains(new.thumbnailFile) && !text.contains(old.thumbnailFile), "\(page)")
        }

        #expect(send(path, [("title", "Door"), ("content", "Look"), ("alt-\(new.name)", "x"), ("remove-\(new.name)", "on")])
                    .status == .seeOther)
        #expect(try post().photos.isEmpty)
        #expect(!onDisk(new))
        #expect(try app.blog.store.photoData(name: new.name) == nil)
        #expect(app.file("alice/\(before.id).html")?.contains("<figure") == false)
        #expect(app.file("alice.atom")?.contains(new.thumbnailFile) == false)
    }

    /// A form of title and text only (as sent before the edit form had
    /// photo and place fields) leaves both as they are.
    @Test func aFormWithoutThoseFieldsKeepsPhotoAndPlace() throws {
        guard let bytes = try PhotoUploadTests.photo(in: app.blog.folder) else { return }
        #expect(send("/app/posts", [("title", "Door"), ("content", "Look"), ("alt", "kept"), ("latitude", "1.5"),
                                    ("longitude", "2.5")], photo: bytes).status == .seeOther)
        let before = try post()
        let edited = browser.post("/app/posts/\(before.id)/edit", [("csrf", browser.csrf), ("title", "New"), ("content", "Text")])
        #expect(edited.status == .seeOther)
        let after = try post()
        #expect(after.title == "New" && after.photos == before.photos && after.place == before.place)
    }
}
