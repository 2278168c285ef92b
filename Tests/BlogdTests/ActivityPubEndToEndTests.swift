import BlogTestSupport
import Foundation
import Testing

/// The real binary, its web client on: WebFinger finds a blog at the base
/// URL's host, NodeInfo names blogd's version and the `registration`
/// setting, the pages blogd writes link their JSON, and a post's page
/// answers its Note to a fediverse server and the page to a browser.
@Suite(.serialized)
struct ActivityPubEndToEndTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_BASE_URL": "https://blog.example/",
                       "BLOGD_REGISTRATION": "closed"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-ap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var data: [String] { ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path] }

    /// curl's status line, headers (lowercased names) and body.
    func get(_ port: Int, _ path: String, accept: String) throws -> (status: Int, type: String, body: String) {
        let marker = "\n--status--"
        let (_, output) = try tool("curl", ["-s", "-H", "Accept: \(accept)", "-w", "\(marker)%{http_code} %{content_type}",
                                            "http://127.0.0.1:\(port)\(path)"])
        let parts = output.components(separatedBy: marker)
        let tail = parts.last ?? ""
        let status = Int(tail.prefix { $0 != " " }) ?? 0
        return (status, String(tail.drop { $0 != " " }.dropFirst()), parts.dropLast().joined(separator: marker))
    }

    @Test func aBlogIsFoundAndItsPostsReadAsNotes() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        if curlIsMissing() { return }
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0"] + data, environment: environment)
        defer { _ = server.stop() }
        let http = try server.waitForHTTPPort()
        #expect(try runBlogd(["adduser", "alice"] + data, environment: environment, input: "pw\n").status == 0)
        let token = try runBlogd(["token", "alice", "--scope", "create"] + data, environment: environment).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let created = try tool("curl", ["-s", "-D", "-", "-o", "/dev/null", "-H", "Authorization: Bearer \(token)",
                                        "-d", "h=entry", "-d", "name=Hello", "-d", "content=From the #fediverse",
                                        "http://127.0.0.1:\(http)/micropub"])
        let location = try #require(created.output.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") })
        let id = try #require(location.split(separator: "/").last.map { String($0.dropLast(5)) })

        let finger = try get(http, "/.well-known/webfinger?resource=acct:alice@blog.example", accept: "application/jrd+json")
        #expect(finger.status == 200 && finger.type == "application/jrd+json")
        #expect(finger.body.contains("\"href\":\"https://blog.example/ap/alice\""))
        let info = try get(http, "/nodeinfo/2.1", accept: "application/json")
        #expect(info.body.contains("\"software\":{\"name\":\"blogd\",\"version\":\""), "\(info.body)")
        #expect(info.body.contains("\"openRegistrations\":false"))

        let mastodon = "application/activity+json, application/ld+json; profile=\"https://www.w3.org/ns/activitystreams\""
        let note = try get(http, "/alice/\(id).html", accept: mastodon)
        #expect(note.status == 200 && note.type == "application/activity+json; charset=utf-8")
        #expect(note.body.contains("\"id\":\"https://blog.example/ap/alice/posts/\(id)\",\"type\":\"Note\""), "\(note.body)")
        let page = try get(http, "/alice/\(id).html", accept: "text/html")
        #expect(page.status == 200 && page.body.contains(
            "<link rel=\"alternate\" type=\"application/activity+json\" href=\"https://blog.example/ap/alice/posts/\(id)\">"))
        let blog = try get(http, "/alice.html", accept: "text/html")
        #expect(blog.body.contains("<link rel=\"alternate\" type=\"application/activity+json\" href=\"https://blog.example/ap/alice\">"))
        #expect(try get(http, "/ap/alice/posts/\(id)", accept: "text/html").status == 303)
    }
}
