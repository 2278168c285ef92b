import BlogApp
import BlogCore
@testable import BlogWeb
import Foundation
import Logging
import Testing

/// The web server in front of the web client and Micropub, over real
/// sockets: a declared length over the path's own limit (form or JSON
/// 1 MiB; multipart and media the photo limit) gets `413` before a byte of
/// the body is read, in the path's own form (JSON for Micropub, a page
/// for the web client); a chunked body is stopped at the limit; a photo
/// over the limit sent from the post form gets the form back as typed.
@Suite(.serialized)
struct BodyLimitTests {
    static let fixed = Date(timeIntervalSince1970: 1_800_000_000)
    let app: AppFixture
    let budget = UploadBudget(perMinute: 1, burst: 10, concurrent: 4, now: { BodyLimitTests.fixed })

    init() throws {
        app = try AppFixture(uploads: budget)
    }

    func start() async throws -> WebServer {
        try await WebServer(folder: app.blog.publicFolder, host: "127.0.0.1", port: 0, logger: Logger(label: "test.http"),
                            limits: .patient, application: ApplicationSet([app.client, app.micropub]))
    }

    func bearer() throws -> String {
        try app.blog.service.moderateAddUser("alice", password: "pw")
        let user = try #require(try app.blog.store.user(named: "alice"))
        return try app.tokens.issue(userID: user.id, kind: .bearer, scopes: [.create, .media], label: "t", lifetime: nil).secret
    }

    func jsonError(_ response: WireResponse) throws -> [String: String] {
        #expect(response.headers["content-type"] == "application/json")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String])
    }

    /// Headers declaring more than the limit, and no body: the answer
    /// comes at once (a server waiting for the body would answer nothing).
    @Test func micropubRefusesADeclaredLengthOverItsLimitUnread() async throws {
        let token = try bearer()
        let web = try await start()
        let port = web.port
        let photo = 10 << 20  // the default photo limit
        let cases: [(path: String, type: String, length: Int, limit: String)] = [
            ("/micropub", "application/x-www-form-urlencoded", 11 << 20, "1 MiB"),
            ("/micropub", "application/json", (1 << 20) + 1, "1 MiB"),
            ("/micropub", "multipart/form-data; boundary=x", photo + 64 * 1024 + 64 * 1024 + 1, "10.1 MiB"),
            ("/micropub/media", "multipart/form-data; boundary=x", photo + 64 * 1024 + 1, "10.1 MiB"),
        ]
        for item in cases {
            let response = try await onThread {
                let connection = try WireHTTP(port: port)
                connection.send("POST \(item.path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                                + "Content-Type: \(item.type)\r\nContent-Length: \(item.length)\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(response.status == 413 && response.headers["connection"] == "close", "\(item)")
            let error = try jsonError(response)
            #expect(error["error"] == "invalid_request" && error["error_description"]?.contains(item.limit) == true, "\(error)")
        }
        let user = try #require(try app.blog.store.user(named: "alice"))
        #expect(try app.blog.store.posts(ofUserID: user.id).isEmpty)
        #expect(try app.blog.store.photos(ofUserID: user.id).isEmpty)
        #expect(web.reservedBodyBytes == 0)
        await web.stop()
    }

    /// A chunked form is read up to 1 MiB, and refused with the next byte.
    @Test func micropubStopsAChunkedFormAtItsLimit() async throws {
        let token = try bearer()
        let web = try await start()
        let port = web.port
        let response = try await onThread {
            let connection = try WireHTTP(port: port)
            connection.send("POST /micropub HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                            + "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n")
            // 1 MiB in all, each chunk read as it comes; then one byte more.
            var left = 1 << 20
            let start = "h=entry&name=Big&content="
            connection.send(String(start.utf8.count, radix: 16) + "\r\n" + start + "\r\n")
            left -= start.utf8.count
            while left > 0 {
                let part = String(repeating: "a", count: min(left, 64 * 1024))
                connection.send(String(part.utf8.count, radix: 16) + "\r\n" + part + "\r\n")
                left -= part.utf8.count
            }
            connection.send("1\r\na\r\n0\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(response.status == 413)
        #expect(try jsonError(response)["error"] == "invalid_request")
        let user = try #require(try app.blog.store.user(named: "alice"))
        #expect(try app.blog.store.posts(ofUserID: user.id).isEmpty)
        await web.stop()
    }

    /// A browser sends the whole photo before it reads an answer: one over
    /// the limit is read to its end and dropped, and the page shows the
    /// form as typed, the limit named; the address's upload budget pays
    /// for the bytes dropped (one upload on the head, one more per photo
    /// limit's worth dropped).
    @Test func aPhotoOverTheLimitGetsTheFormBackAsTyped() async throws {
        let web = try await start()
        let port = web.port
        let browser = AppFixture.Browser(app.client, address: "127.0.0.1", secure: false)
        browser.signIn("alice", "pw")
        let session = try #require(browser.cookies["blogd_session"])
        let body = multipartBody(boundary: "XyZ", fields: [("csrf", browser.csrf), ("title", "Holiday <3"),
                                                           ("content", "We went to the sea.\nIt was cold.")],
                                 files: [("photo", "image/jpeg", [UInt8](repeating: 0xFF, count: 12 << 20))])
        let response = try await onThread {
            let connection = try WireHTTP(port: port)
            connection.send("POST /app/posts HTTP/1.1\r\nHost: localhost\r\nCookie: blogd_session=\(session)\r\n"
                            + "Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: \(body.count)\r\n\r\n")
            connection.send(body)
            return try connection.readResponse()
        }
        #expect(response.status == 413)
        #expect(response.headers["content-type"] == "text/html; charset=utf-8")
        let page = response.text
        #expect(page.contains("at most 10 MiB") && page.contains("Nothing was published"))
        #expect(page.contains("value=\"Holiday &lt;3\"") && page.contains("We went to the sea.\nIt was cold.</textarea>"))
        #expect(page.contains("action=\"/app/posts\"") && page.contains("href=\"/app/\""), "the form, and the way back")
        let user = try #require(try app.blog.store.user(named: "alice"))
        #expect(try app.blog.store.posts(ofUserID: user.id).isEmpty)
        #expect(try app.blog.store.photos(ofUserID: user.id).isEmpty)
        #expect(budget.available(for: "127.0.0.1") == 8)
        // Signed out, the same upload is sent to the login, and paid for.
        let stranger = try await onThread {
            let connection = try WireHTTP(port: port)
            connection.send("POST /app/posts HTTP/1.1\r\nHost: localhost\r\n"
                            + "Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: \(body.count)\r\n\r\n")
            connection.send(body)
            return try connection.readResponse()
        }
        #expect(stranger.status == 303 && stranger.headers["location"] == "/app/login")
        #expect(budget.available(for: "127.0.0.1") == 6)
        #expect(web.reservedBodyBytes == 0)
        await web.stop()
    }

    /// Past what is worth reading to the end (three photo limits more), a
    /// declared length is refused on the head, still with the app's page;
    /// and an address out of upload budget gets a page too, unread.
    @Test func aBodyPastTheHardCapIsRefusedOnItsHeadWithAPage() async throws {
        let web = try await start()
        let port = web.port
        let browser = AppFixture.Browser(app.client, address: "127.0.0.1", secure: false)
        browser.signIn("alice", "pw")
        let session = try #require(browser.cookies["blogd_session"])
        @Sendable func head(_ length: Int) -> String {
            "POST /app/posts HTTP/1.1\r\nHost: localhost\r\nCookie: blogd_session=\(session)\r\n"
                + "Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: \(length)\r\n\r\n"
        }
        let huge = try await onThread {
            let connection = try WireHTTP(port: port)
            connection.send(head(50 << 20))
            return try connection.readResponse()
        }
        #expect(huge.status == 413 && huge.headers["connection"] == "close")
        #expect(huge.headers["content-type"] == "text/html; charset=utf-8")
        #expect(huge.text.contains("at most 10 MiB") && huge.text.contains("<a href=\"/app/\">Back</a>"))
        // A form without a photo is held to its text: no reading past it.
        let form = try await onThread {
            let connection = try WireHTTP(port: port)
            connection.send("POST /app/login HTTP/1.1\r\nHost: localhost\r\n"
                            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(1 << 20)\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(form.status == 413 && form.headers["content-type"] == "text/html; charset=utf-8")
        #expect(form.text.contains("at most 64 KiB") && form.text.contains("<a href=\"/app/\">Back</a>"))
        // The budget (10) spent on heads: the next is refused unread, with a page.
        for _ in 0..<10 { budget.charge(1, for: "127.0.0.1") }
        let spent = try await onThread {
            let connection = try WireHTTP(port: port)
            connection.send(head(1 << 20))
            return try connection.readResponse()
        }
        #expect(spent.status == 429 && spent.headers["retry-after"] == "60")
        #expect(spent.text.contains("Too many photos") && spent.text.contains("<a href=\"/app/\">Back</a>"))
        let user = try #require(try app.blog.store.user(named: "alice"))
        #expect(try app.blog.store.posts(ofUserID: user.id).isEmpty)
        await web.stop()
    }
}
