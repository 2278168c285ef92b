import BlogApp
import BlogCore
import BlogTestSupport
import BlogWeb
import BlogWire
import Foundation
import HTTPTypes
import Testing
import BlogModel

/// Micropub's HTML content (3.7.2) and photos' alt texts kept and given
/// back, and updates of `photo` and `location`, against a real blog.
extension MicropubTests {
    /// An upload of alice's, as the media endpoint stores it.
    func storedPhoto(seed: UInt64 = 1) throws -> PostPhoto {
        let photo = testPhoto()
        let alice = try Username("alice")
        let reply = app.blog.service.storePhoto(photo, image: fakeJPEG(2_000, seed: seed), thumbnail: fakeJPEG(300, seed: seed + 9),
                                                for: alice, session: Session(peerAddress: "203.0.113.5", authenticatedAs: alice))
        #expect(reply == .posted)
        return photo
    }

    func url(_ photo: PostPhoto) -> String { AppFixture.base + photo.file }

    func source(_ id: Int64) throws -> [String: Any] {
        let url = AppFixture.Browser.encode(AppFixture.base + "alice/\(id).html")
        let response = send(.get, query: "q=source&url=\(url)", type: nil)
        #expect(response.status == .ok)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return try #require(object["properties"] as? [String: Any])
    }

    func update(_ id: Int64, _ operations: [String: Any]) throws -> WebResponse {
        var body = operations
        body["action"] = "update"
        body["url"] = AppFixture.base + "alice/\(id).html"
        return try json(body)
    }

    /// 202 and 602: HTML content comes back from `q=source` as sent; the
    /// pages show only the text derived from it, escaped.
    @Test func test202And602HTMLContentRoundTrips() throws {
        let html = "<p>Hi <b>there</b> &amp; you</p><script>alert(1)</script><img src=x onerror=alert(2)>"
        let id = try id(try json(["type": ["h-entry"], "properties": ["content": [["html": html]], "name": ["T"]]]))
        #expect(try posts().first?.content == "Hi there & you")
        #expect(try source(id)["content"] as? [[String: String]] == [["html": html]])
        app.blog.service.writeIndex()
        for page in ["alice.html", "alice/\(id).html", "alice.atom"] {
            let text = try #require(app.file(page))
            #expect(!text.contains("<b>") && !text.contains("<script>") && !text.contains("onerror=alert"), "\(page)")
        }
        #expect(app.file("alice/\(id).html")?.contains("Hi there &amp; you") == true)

        // Another property replaced: the HTML stays.
        #expect(try update(id, ["replace": ["name": ["Renamed"]]]).status == .noContent)
        #expect(try source(id)["content"] as? [[String: String]] == [["html": html]])
        // Plain content replaces it.
        #expect(try update(id, ["replace": ["content": ["Plain now"]]]).status == .noContent)
        #expect(try source(id)["content"] as? [String] == ["Plain now"])
        #expect(try posts().first?.contentHTML == nil)
        // HTML again, through an update.
        #expect(try update(id, ["replace": ["content": [["html": "<i>again</i>"]]]]).status == .noContent)
        #expect(try source(id)["content"] as? [[String: String]] == [["html": "<i>again</i>"]])
        #expect(try posts().first?.content == "again")
        // The protocol's editpost sends plain text: it clears the HTML too.
        let alice = try Username("alice")
        let edited = try app.blog.server.perform(.editPost(user: alice, id: id, title: Title("T"), content: PostText(framed: "over the wire")),
                                             session: Session(peerAddress: "203.0.113.5", authenticatedAs: alice))
        #expect(edited.reply == .edited)
        #expect(try source(id)["content"] as? [String] == ["over the wire"])
    }

    /// HTML over the text's limit, or with control characters, is refused
    /// and nothing is stored.
    @Test func hostileHTMLIsRefused() throws {
        let long = "<p>" + String(repeating: "<b></b>", count: 10_000) + "x</p>"
        #expect(try json(["type": ["h-entry"], "properties": ["content": [["html": long]], "name": ["T"]]]).status == .badRequest)
        #expect(try json(["type": ["h-entry"], "properties": ["content": [["html": "<p>a\u{1B}[2J</p>"]]]]).status == .badRequest)
        #expect(try posts().isEmpty)
    }

    /// 205: a photo's alt text is kept, shown on the pages and in the
    /// feed, and given back by `q=source`.
    @Test func test205PhotoWithAltText() throws {
        let photo = try storedPhoto(), plain = try storedPhoto(seed: 2)
        let alt = "A red door, \"ajar\" <b>"
        let created = try json(["type": ["h-entry"], "properties": [
            "content": ["Door"], "photo": [["value": url(photo), "alt": alt], url(plain)]]])
        let id = try id(created)
        #expect(try posts().first?.photos.map(\.alt) == [alt, ""])
        let escaped = "alt=\"A red door, &quot;ajar&quot; &lt;b&gt;\""
        for page in ["alice.html", "alice/\(id).html"] {
            #expect(app.file(page)?.contains(escaped) == true, "\(page)")
        }
        // A new post's feed is written in the background: now, for the check.
        app.blog.service.writeIndex()
        #expect(app.file("alice.atom")?.contains("alt=&quot;A red door, &amp;quot;ajar&amp;quot; &amp;lt;b&amp;gt;&quot;") == true)
        let photos = try #require(try source(id)["photo"] as? [Any])
        #expect(photos.count == 2)
        #expect(photos.first as? [String: String] == ["value": url(photo), "alt": alt])
        #expect(photos.last as? String == url(plain))
    }

    /// A form has no syntax for objects (3.1.1): `mp-photo-alt` gives the
    /// photos' alt texts in order.
    @Test func formPhotoAltText() throws {
        let photo = try storedPhoto()
        let body = "h=entry&content=Door&photo=\(AppFixture.Browser.encode(url(photo)))&mp-photo-alt=A+red+door"
        let id = try id(send(body: body))
        #expect(try posts().first?.photos.map(\.alt) == ["A red door"])
        #expect(app.file("alice/\(id).html")?.contains("alt=\"A red door\"") == true)
        // More alt texts than photos, or a hostile one: refused, nothing stored.
        let other = try storedPhoto(seed: 2)
        let encoded = AppFixture.Browser.encode(url(other))
        #expect(send(body: "h=entry&content=x&photo=\(encoded)&mp-photo-alt=a&mp-photo-alt=b").status == .badRequest)
        #expect(send(body: "h=entry&content=x&photo=\(encoded)&mp-photo-alt=a%07b").status == .badRequest)
        let long = String(repeating: "a", count: PostPhoto.maxAltCharacters + 1)
        #expect(try json(["type": ["h-entry"], "properties": [
            "content": ["x"], "photo": [["value": url(other), "alt": long]]]]).status == .badRequest)
        #expect(try posts().count == 1)
        #expect(try app.blog.store.photoData(name: other.name) != nil, "the upload is still free")
    }

    /// A multipart create's file takes its alt text from `mp-photo-alt`,
    /// after the photos by URL.
    @Test func multipartFilesTakeTheirAltTextInOrder() throws {
        guard let bytes = try PhotoUploadTests.photo(in: app.blog.folder) else { return }
        let byURL = try storedPhoto()
        let (type, body) = PhotoUploadTests.multipart(
            [("h", "entry"), ("content", "Two"), ("photo", url(byURL)), ("mp-photo-alt", "by URL"), ("mp-photo-alt", "as a file")],
            files: [("photo", "camera.jpg", "image/jpeg", bytes)])
        let headers: HTTPFields = [HTTPField.Name("Host")!: "blog.example", .contentType: type,
                                   .authorization: "Bearer \(secret)"]
        let created = app.micropub.respond(to: WebRequest(method: .post, path: "/micropub", query: "", headers: headers,
                                                          body: body, peerAddress: "203.0.113.5", secure: true))
        #expect(created.status == .created)
        let post = try #require(try posts().first)
        #expect(post.photos.map(\.alt) == ["by URL", "as a file"] && post.photos.first?.name == byURL.name)
    }

    /// Updates of `photo` (replace, add, delete of a value or of the
    /// property) and `location` (replace, delete): the pages, the feed and
    /// the map follow, and a photo taken off loses its files and its row.
    @Test func updatesChangeThePhotosAndThePlace() throws {
        let first = try storedPhoto(seed: 1), second = try storedPhoto(seed: 2), third = try storedPhoto(seed: 3)
        let id = try id(try json(["type": ["h-entry"], "properties": ["content": ["Door"], "photo": [url(first)]]]))
        let public_ = app.blog.publicFolder
        func exists(_ photo: PostPhoto) -> Bool {
            FileManager.default.fileExists(atPath: public_.appendingPathComponent(photo.file).path)
                && FileManager.default.fileExists(atPath: public_.appendingPathComponent(photo.thumbnailFile).path)
        }
        #expect(exists(first))

        #expect(try update(id, ["replace": ["photo": [["value": url(second), "alt": "second"]]]]).status == .noContent)
        #expect(try posts().first?.photos.map(\.name) == [second.name])
        #expect(!exists(first) && exists(second), "the old photo's files leave the public folder")
        #expect(try app.blog.store.photoData(name: first.name) == nil, "and its row goes")
        #expect(app.file("alice/\(id).html")?.contains(second.thumbnailFile) == true)
        #expect(app.file("alice/\(id).html")?.contains(first.thumbnailFile) == false)
        #expect(app.file("alice.atom")?.contains(second.thumbnailFile) == true)

        #expect(try update(id, ["add": ["photo": [url(third)]]]).status == .noContent)
        #expect(try posts().first?.photos.map(\.name) == [second.name, third.name])
        #expect(try update(id, ["delete": ["photo": [url(second)]]]).status == .noContent)
        #expect(try posts().first?.photos.map(\.name) == [third.name])
        #expect(!exists(second))

        #expect(try update(id, ["replace": ["location": ["geo:50.08,14.42"]]]).status == .noContent)
        #expect(try posts().first?.place == (try Place(latitude: "50.08", longitude: "14.42")))
        #expect(app.file("alice.map.html")?.contains("alice/\(id).html") == true)
        #expect(try source(id)["location"] as? [String] == ["geo:50.08,14.42"])

        #expect(try update(id, ["delete": ["photo", "location"]]).status == .noContent)
        let post = try #require(try posts().first)
        #expect(post.photos.isEmpty && post.place == nil)
        #expect(!exists(third))
        #expect(app.file("alice.map.html") == nil, "no placed post, no map")
        #expect(app.file("alice/\(id).html")?.contains("<figure") == false)

        // Refused, nothing changed: a foreign URL, one photo too many, a
        // place out of range.
        let photos = try (10..<15).map { try storedPhoto(seed: $0) }
        #expect(try update(id, ["replace": ["photo": ["https://elsewhere.example/x.jpg"]]]).status == .badRequest)
        #expect(try update(id, ["replace": ["photo": photos.map(url)]]).status == .badRequest)
        #expect(try update(id, ["replace": ["location": ["geo:95,0"]]]).status == .badRequest)
        #expect(try posts().first == post)
    }
}
