import BlogApp
import BlogCore
import BlogPhotos
import BlogTestSupport
import BlogWeb
import Foundation
import HTTPTypes
import Testing

/// Photos through the web form and Micropub against a real blog: stored,
/// published without metadata (checked with exiftool), the photo's own
/// place used only when asked; bad files, floods and foreign URLs refused
/// with a clear status and nothing stored. (micropub.rocks 104, 203, 300,
/// 700, 701.)
@Suite
struct PhotoUploadTests {
    /// A 640x480 JPEG with a camera model and a GPS position, made by the
    /// real tools; nil (the test skips) when they are missing and not required.
    static func photo(in folder: URL) throws -> [UInt8]? {
        let missing = ["vips", "exiftool"].filter { (try? tool("which", [$0]).status) != 0 }
        if !missing.isEmpty {
            try #require(ProcessInfo.processInfo.environment["BLOGD_REQUIRE_PHOTO_TOOLS"] != "1",
                         "missing \(missing): apt-get install libvips-tools libimage-exiftool-perl")
            return nil
        }
        let file = folder.appendingPathComponent("camera.jpg").path
        #expect(try tool("vips", ["black", file, "640", "480", "--bands", "3"]).status == 0)
        #expect(try tool("exiftool", ["-overwrite_original", "-Model=SpyCam 9", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N",
                                      "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", file]).status == 0)
        return Array(try Data(contentsOf: URL(fileURLWithPath: file)))
    }

    /// A multipart body: text fields, then files `(field, filename, type, bytes)`.
    static func multipart(_ fields: [(String, String)], files: [(String, String, String, [UInt8])]) -> (String, [UInt8]) {
        let boundary = "blogdtest\(UInt32.random(in: 0 ... .max))"
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        for (name, filename, type, bytes) in files {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(type)\r\n\r\n".utf8)
            body += bytes + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return ("multipart/form-data; boundary=\(boundary)", body)
    }

    func postForm(_ browser: AppFixture.Browser, _ fields: [(String, String)], photo: [UInt8]?, type: String = "image/jpeg") -> WebResponse {
        let (contentType, body) = Self.multipart([("csrf", browser.csrf)] + fields,
                                                 files: photo.map { [("photo", "camera.jpg", type, $0)] } ?? [])
        return browser.send(.post, "/app/posts", body: body, extra: [.contentType: contentType, .origin: "https://blog.example"])
    }

    @Test func aPhotoIsPublishedWithoutItsMetadata() throws {
        let app = try AppFixture()
        guard let bytes = try Self.photo(in: app.blog.folder) else { return }
        let browser = AppFixture.Browser(app.client)
        browser.signIn("alice", "pw")
        let posted = postForm(browser, [("title", "With a photo"), ("content", "Look")], photo: bytes)
        #expect(posted.status == .seeOther)
        let owner = try #require(try app.blog.store.user(named: "alice"))
        let post = try #require(try app.blog.store.posts(ofUserID: owner.id).first)
        let photo = try #require(post.photos.first)
        #expect(post.place == nil, "the photo's place is not published unless asked for")
        #expect(photo.width == 640 && photo.height == 480)
        let page = try #require(app.file("alice.html"))
        #expect(page.contains(photo.thumbnailFile))
        let served = app.blog.publicFolder.appendingPathComponent(photo.file).path
        let tags = try tool("exiftool", ["-j", "-a", "-G1", served]).output
        #expect(!tags.contains("GPS") && !tags.contains("SpyCam"), "\(tags)")
        #expect(FileManager.default.fileExists(atPath: app.blog.publicFolder.appendingPathComponent(photo.thumbnailFile).path))
    }

    @Test func thePhotosPlaceOnlyWhenAsked() throws {
        let app = try AppFixture()
        guard let bytes = try Self.photo(in: app.blog.folder) else { return }
        let browser = AppFixture.Browser(app.client)
        browser.signIn("bob", "pw")
        #expect(postForm(browser, [("title", "Placed"), ("content", ""), ("photo_location", "on")], photo: bytes).status == .seeOther)
        let owner = try #require(try app.blog.store.user(named: "bob"))
        let post = try #require(try app.blog.store.posts(ofUserID: owner.id).first)
        #expect(post.place?.latitude.hasPrefix("48.858") == true && post.place?.longitude.hasPrefix("2.294") == true)
    }

    @Test func badFilesAreRefusedAndNothingIsStored() throws {
        let app = try AppFixture()
        guard let bytes = try Self.photo(in: app.blog.folder) else { return }
        let browser = AppFixture.Browser(app.client)
        browser.signIn("carol", "pw")
        let owner = try #require(try app.blog.store.user(named: "carol"))
        #expect(postForm(browser, [("title", "Text"), ("content", "")], photo: Array("not an image".utf8)).status == .unsupportedMediaType)
        #expect(postForm(browser, [("title", "Lies"), ("content", "")], photo: bytes, type: "image/png").status == .unsupportedMediaType)
        #expect(postForm(browser, [("title", "Cut"), ("content", "")], photo: Array(bytes.prefix(bytes.count / 2))).status
            == .unprocessableContent)
        #expect(try app.blog.store.posts(ofUserID: owner.id).isEmpty)
        #expect(try app.blog.store.photos(ofUserID: owner.id).isEmpty)
    }

    @Test func aFloodOfUploadsFromOneAddressIsRefused() throws {
        let app = try AppFixture(uploads: UploadBudget(perMinute: 0.001, burst: 2))
        guard let bytes = try Self.photo(in: app.blog.folder) else { return }
        let browser = AppFixture.Browser(app.client)
        browser.signIn("dave", "pw")
        #expect(postForm(browser, [("title", "1"), ("content", "")], photo: bytes).status == .seeOther)
        #expect(postForm(browser, [("title", "2"), ("content", "")], photo: bytes).status == .seeOther)
        let third = postForm(browser, [("title", "3"), ("content", "")], photo: bytes)
        #expect(third.status == .tooManyRequests && third.text.contains("wait a minute"))
        let owner = try #require(try app.blog.store.user(named: "dave"))
        #expect(try app.blog.store.posts(ofUserID: owner.id).count == 2)
        // Another address still uploads.
        let other = AppFixture.Browser(app.client, address: "198.51.100.20")
        other.signIn("erin", "pw")
        #expect(postForm(other, [("title", "mine"), ("content", "")], photo: bytes).status == .seeOther)
    }

    /// The upload budget is per /64, as every other budget: a client that
    /// sends each upload from a new address of its /64 (any IPv6 host can)
    /// is refused as one address; the next /64 is another address.
    @Test func rotatingAddressesInsideOneSlash64ShareTheBudget() throws {
        let app = try AppFixture(uploads: UploadBudget(perMinute: 0.001, burst: 2))
        guard let bytes = try Self.photo(in: app.blog.folder) else { return }
        var statuses: [HTTPResponse.Status] = []
        for (index, address) in ["2001:db8:7:7::1", "2001:db8:7:7::2", "2001:db8:7:7:ffff:ffff:ffff:3"].enumerated() {
            let browser = AppFixture.Browser(app.client, address: address)
            browser.signIn("mallory\(index)", "pw")
            statuses.append(postForm(browser, [("title", "\(index)"), ("content", "")], photo: bytes).status)
        }
        #expect(statuses == [.seeOther, .seeOther, .tooManyRequests])
        let neighbour = AppFixture.Browser(app.client, address: "2001:db8:7:8::1")
        neighbour.signIn("trent", "pw")
        #expect(postForm(neighbour, [("title", "next /64"), ("content", "")], photo: bytes).status == .seeOther)
    }

    // MARK: Micropub

    func micropub(_ app: AppFixture, path: String = "/micropub", _ contentType: String, _ body: [UInt8], token: String) -> WebResponse {
        app.micropub.respond(to: WebRequest(method: .post, path: path,
                                            headers: [.contentType: contentType, .authorization: "Bearer \(token)"],
                                            body: body, peerAddress: "203.0.113.5", secure: true))
    }

    @Test func test300And700MicropubPhotos() throws {
        let app = try AppFixture()
        guard let bytes = try Self.photo(in: app.blog.folder) else { return }
        try app.blog.service.moderateAddUser("alice", password: "pw")
        let owner = try #require(try app.blog.store.user(named: "alice"))
        let token = try app.tokens.issue(userID: owner.id, kind: .bearer, scopes: [.create, .media], label: "t", lifetime: nil).secret
        // 300: a post with its photo in one multipart request.
        let (type, body) = Self.multipart([("h", "entry"), ("content", "Multipart")], files: [("photo", "a.jpg", "image/jpeg", bytes)])
        #expect(micropub(app, type, body, token: token).status == .created)
        #expect(try app.blog.store.posts(ofUserID: owner.id).first?.photos.count == 1)
        // 700: the media endpoint, then 104: a post naming the photo by URL.
        let (mediaType, mediaBody) = Self.multipart([], files: [("file", "b.jpg", "image/jpeg", bytes)])
        let uploaded = micropub(app, path: "/micropub/media", mediaType, mediaBody, token: token)
        #expect(uploaded.status == .created)
        let url = try #require(uploaded.headers[.location])
        #expect(url.hasPrefix(AppFixture.base + "photos/") && url.hasSuffix(".jpg"))
        let form = "h=entry&content=By+URL&photo=" + AppFixture.Browser.encode(url)
        #expect(micropub(app, "application/x-www-form-urlencoded", Array(form.utf8), token: token).status == .created)
        let byURL = try #require(try app.blog.store.posts(ofUserID: owner.id).first)
        #expect(byURL.content == "By URL" && byURL.photos.first.map { url.contains($0.name) } == true)
        // A photo from elsewhere is not fetched.
        let foreign = "h=entry&content=x&photo=" + AppFixture.Browser.encode("https://elsewhere.example/cat.jpg")
        #expect(micropub(app, "application/x-www-form-urlencoded", Array(foreign.utf8), token: token).status == .badRequest)
        // Without the media scope, no upload.
        let createOnly = try app.tokens.issue(userID: owner.id, kind: .bearer, scopes: [.create], label: "c", lifetime: nil).secret
        let refused = micropub(app, path: "/micropub/media", mediaType, mediaBody, token: createOnly)
        #expect(refused.status == .unauthorized && refused.text.contains("insufficient_scope"))
        #expect(try app.blog.store.posts(ofUserID: owner.id).count == 2)
    }
}
