@testable import BlogApp
import Testing

/// The form readers, pure: URL-encoded fields, multipart parts, and the
/// routes of the web client.
@Suite
struct FormParsingTests {
    @Test func urlEncodedFieldsDecode() {
        let form = FormData(bytes: Array("title=Hello+there%21&tags[]=a&tags=b&empty=&flag&bad=%zz&pct=100%".utf8))
        #expect(form["title"] == "Hello there!")
        #expect(form.all("tags") == ["a", "b"])
        #expect(form["empty"] == "" && form["flag"] == "")
        #expect(form["bad"] == "%zz" && form["pct"] == "100%")
        #expect(!form.isRefused)
        let invalid = FormData(bytes: Array("name=%FF&ok=1".utf8))
        #expect(invalid.isRefused && invalid["name"] == nil && invalid["ok"] == "1")
        #expect(FormData(query: "q=source&url=https%3A%2F%2Fx%2Fa%2F1.html")["url"] == "https://x/a/1.html")
    }

    /// A form may hold `FormData.maxFields` fields; one more refuses it
    /// whole, and a flood of empty pairs is read without a field.
    @Test func aFormPastItsFieldLimitIsRefused() {
        let fields = (0 ..< FormData.maxFields).map { "f\($0)=\($0)" }
        let full = FormData(bytes: Array(fields.joined(separator: "&").utf8))
        #expect(!full.isRefused && full.fields.count == FormData.maxFields)
        let over = FormData(bytes: Array((fields + ["one=more"]).joined(separator: "&").utf8))
        #expect(over.isRefused)
        let ampersands = FormData(bytes: [UInt8](repeating: UInt8(ascii: "&"), count: 1 << 20) + Array("a=1".utf8))
        #expect(!ampersands.isRefused && ampersands.fields.count == 1 && ampersands["a"] == "1")
    }

    @Test func multipartPartsAndFiles() throws {
        let body = Array(("preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHi: there\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n").utf8)
            + [0xFF, 0xD8, 0x0D, 0x0A, 0x2D, 0x2D, 0x00] + Array("\r\n--XyZ--\r\n".utf8)
        let form = try MultipartForm(body: body, contentType: "multipart/form-data; boundary=\"XyZ\"")
        #expect(form.field("title") == "Hi: there")
        let photo = try #require(form.files("photo").first)
        #expect(photo.filename == "a.jpg" && photo.contentType == "image/jpeg")
        #expect(photo.body == [0xFF, 0xD8, 0x0D, 0x0A, 0x2D, 0x2D, 0x00])
    }

    @Test func malformedMultipartIsRefusedWhole() {
        func parse(_ text: String, _ type: String = "multipart/form-data; boundary=b") -> MultipartForm.Failure? {
            do {
                _ = try MultipartForm(body: Array(text.utf8), contentType: type)
                return nil
            } catch {
                return error
            }
        }
        #expect(parse("--b--", "multipart/form-data") == .noBoundary)
        #expect(parse("--b--", "text/plain; boundary=b") == .noBoundary)
        #expect(parse("no delimiter at all") == .malformed)
        #expect(parse("--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nnever ends") == .malformed)
        #expect(parse("--b\r\nNo-Name: 1\r\n\r\nx\r\n--b--") == .malformed)
        let many = String(repeating: "--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n", count: 40) + "--b--"
        #expect(parse(many) == .tooManyParts)
        #expect(parse("--b--") == nil)
    }

    @Test func routes() {
        #expect(AppRoute(method: .get, path: "/app/") == .home)
        #expect(AppRoute(method: .get, path: "/app") == .home)
        #expect(AppRoute(method: .post, path: "/app/login") == .login)
        #expect(AppRoute(method: .get, path: "/app/posts/17/edit") == .showEdit(17))
        #expect(AppRoute(method: .post, path: "/app/posts/17/edit") == .edit(17))
        #expect(AppRoute(method: .post, path: "/app/posts/17/delete") == .delete(17))
        #expect(AppRoute(method: .get, path: "/app/posts/17/delete") == .methodNotAllowed)
        #expect(AppRoute(method: .post, path: "/app/settings/tokens/3/revoke") == .revokeToken(3))
        #expect(AppRoute(method: .get, path: "/app/trash") == .trash)
        #expect(AppRoute(method: .post, path: "/app/trash") == .methodNotAllowed)
        #expect(AppRoute(method: .post, path: "/app/posts/17/restore") == .restore(17))
        #expect(AppRoute(method: .get, path: "/app/posts/17/restore") == .methodNotAllowed)
        for bad in ["/app/posts/0/restore", "/app/posts/x/restore", "/app/posts/1234567890123456789/restore",
                    "/app/trash/1"] {
            #expect(AppRoute(method: .post, path: bad) == .notFound, "\(bad)")
        }
        for bad in ["/app/posts/0/edit", "/app/posts/-1/edit", "/app/posts/1234567890123456789/edit", "/app/posts/x/edit",
                    "/app/nothing", "/app/posts/1/edit/more"] {
            #expect(AppRoute(method: .get, path: bad) == .notFound, "\(bad)")
        }
        #expect(AppRoute(method: .delete, path: "/app/login") == .methodNotAllowed)
    }

    @Test func micropubTitlesFromText() throws {
        #expect(Micropub.title(from: "\n  \nFirst line\nsecond") == "First line")
        #expect(Micropub.title(from: "   ") == nil)
        let long = String(repeating: "word ", count: 30)
        let title = Micropub.title(from: long)!
        #expect(title.count <= 61 && title.hasSuffix("…") && !title.contains("  "))
        #expect(Micropub.trimmed("1.123456789012345") == "1.1234567890")
        let point = try MicropubParser.geoURI("geo:37.786971,-122.399677;u=35")
        #expect(point.latitude == "37.786971" && point.longitude == "-122.399677")
    }
}
