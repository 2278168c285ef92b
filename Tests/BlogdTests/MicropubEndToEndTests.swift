import BlogTestSupport
import Foundation
import Testing

/// Micropub on the real binary, as an app would use it, with curl: a token
/// from `blogd token`, a post created (201, its page served at the
/// Location), a photo through the media endpoint (served without its GPS,
/// checked with exiftool), and uploads refused with a clear status: 20 MB,
/// truncated, a text file calling itself a JPEG.
@Suite(.serialized)
struct MicropubEndToEndTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-micropub-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var data: [String] { ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path] }

    func curl(_ arguments: [String]) throws -> (status: Int, headers: String) {
        let headers = folder.appendingPathComponent("headers.txt").path
        let result = try tool("curl", ["-s", "-o", "/dev/null", "-D", headers, "-w", "%{http_code}"] + arguments)
        return (Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0,
                (try? String(contentsOfFile: headers, encoding: .utf8)) ?? "")
    }

    @Test func anAppPostsAndUploadsWithAToken() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let tools = ["curl", "vips", "exiftool"].filter { (try? tool("which", [$0]).status) != 0 }
        if !tools.isEmpty {
            try #require(ProcessInfo.processInfo.environment["BLOGD_REQUIRE_PHOTO_TOOLS"] != "1", "missing \(tools)")
            return
        }
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0"] + data, environment: environment)
        defer { _ = server.stop() }
        let http = try server.waitForHTTPPort()
        let base = "http://127.0.0.1:\(http)"
        #expect(try runBlogd(["adduser", "alice"] + data, environment: environment, input: "pw\n").status == 0)
        let issued = try runBlogd(["token", "alice", "--scope", "create media"] + data, environment: environment)
        let token = issued.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let auth = ["-H", "Authorization: Bearer \(token)"]

        let created = try curl(auth + ["-d", "h=entry", "-d", "content=Hello from curl", "\(base)/micropub"])
        #expect(created.status == 201, "\(created.headers)")
        let location = try #require(created.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") })
        let url = location.split(separator: " ", maxSplits: 1)[1]
        let path = "/" + url.split(separator: "/").suffix(2).joined(separator: "/")
        let page = try httpRequest(port: http, path: path)
        #expect(page.status == 200 && page.body.contains("Hello from curl"))

        let photo = folder.appendingPathComponent("camera.jpg").path
        #expect(try tool("vips", ["black", photo, "320", "240", "--bands", "3"]).status == 0)
        #expect(try tool("exiftool", ["-overwrite_original", "-GPSLatitude=10.5", "-GPSLatitudeRef=S", "-GPSLongitude=20.25",
                                      "-GPSLongitudeRef=W", photo]).status == 0)
        let uploaded = try curl(auth + ["-F", "file=@\(photo);type=image/jpeg", "\(base)/micropub/media"])
        #expect(uploaded.status == 201, "\(uploaded.headers)")
        let photoURL = try #require(uploaded.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") })
            .split(separator: " ", maxSplits: 1)[1]
        let served = folder.appendingPathComponent("served.jpg").path
        // The URL names base_url's host; the path is what the server serves.
        let photoPath = "/" + photoURL.split(separator: "/").suffix(2).joined(separator: "/")
        #expect(photoPath.hasPrefix("/photos/") && photoPath.hasSuffix(".jpg"))
        #expect(try tool("curl", ["-s", "-f", "-o", served, base + photoPath]).status == 0)
        let tags = try tool("exiftool", ["-j", "-a", "-G1", served]).output
        #expect(tags.contains("\"File:FileType\": \"JPEG\"") && !tags.contains("GPS"), "\(tags)")

        // Refusals, each with its status, nothing stored.
        let big = folder.appendingPathComponent("big.jpg")
        try Data(repeating: 0xFF, count: 20_000_000).write(to: big)
        #expect(try curl(auth + ["-F", "file=@\(big.path);type=image/jpeg", "\(base)/micropub/media"]).status == 413)
        let cut = folder.appendingPathComponent("cut.jpg")
        let whole = try Data(contentsOf: URL(fileURLWithPath: photo))
        try whole.prefix(whole.count / 2).write(to: cut)
        #expect(try curl(auth + ["-F", "file=@\(cut.path);type=image/jpeg", "\(base)/micropub/media"]).status == 422)
        let text = folder.appendingPathComponent("text.jpg")
        try Data("just text".utf8).write(to: text)
        #expect(try curl(auth + ["-F", "file=@\(text.path);type=image/jpeg", "\(base)/micropub/media"]).status == 415)
        let photos = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("public/photos").path)
        #expect(photos.count == 2, "one photo and its thumbnail: \(photos)")
    }
}
