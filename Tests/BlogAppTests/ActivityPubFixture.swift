import BlogApp
import BlogCore
import BlogModel
import BlogPages
import BlogTestSupport
import BlogWeb
import Foundation
import Logging
import Testing

/// A blog whose pages link their ActivityPub JSON, with `ActivityPubPages`
/// on a real page server on loopback (port 0), a fixed key, and a reading
/// budget on the blog's manual clock. Requests go over a real socket.
final class ActivityPubFixture: @unchecked Sendable {
    let blog: TestBlog
    let web: WebServer
    let pages: ActivityPubPages
    static let base = "https://blog.example/"
    static let pem = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtest\n-----END PUBLIC KEY-----\n"
    static let mastodonAccept = "application/activity+json, application/ld+json; profile=\"https://www.w3.org/ns/activitystreams\", text/html;q=0.1"
    static let browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

    init(pageSize: Int = 50, perSecond: Double = 1000, burst: Double = 1000, followers: Int = 7) async throws {
        var settings = BlogService.Settings(openPosting: true, scrypt: .testing, pageSize: pageSize, baseURL: Self.base)
        settings.pagesNameActivityPub = true
        blog = try TestBlog(settings: settings)
        let clock = blog.clock
        var hooks = ActivityPubHooks(version: "9.9.9")
        hooks.publicKeyPEM = { _ in Self.pem }
        hooks.followerCount = { _ in followers }
        hooks.openRegistrations = { false }
        hooks.instanceKeyPEM = { Self.pem }
        pages = ActivityPubPages(storage: blog.store, baseURL: Self.base, hooks: hooks,
                                 budget: ReadingBudget(perSecond: perSecond, burst: burst, now: { TestBlog.date(of: clock) }),
                                 now: { TestBlog.date(of: clock) })
        web = try await WebServer(folder: blog.publicFolder, host: "127.0.0.1", port: 0, logger: Logger(label: "test.ap"),
                                  limits: .patient, application: ApplicationSet([pages]))
        // As blogd does: a page written or removed is read afresh at once,
        // not after the cache's next check (a deleted post's 410).
        let server = web
        blog.pages.changes.observe { name in server.pageChanged(name) }
    }

    func close() async {
        await web.stop()
        _ = blog.tearDown()
    }

    /// Sends protocol messages in one session; each must succeed.
    func say(_ messages: String...) {
        var session = Session(peerAddress: "127.0.0.1")
        for message in messages {
            let reply = blog.service.handle(message: Array(message.utf8), session: &session).reply
            #expect(reply == .registered || reply == .posted || reply == .edited || reply == .deleted, "\(message): \(reply)")
        }
    }

    /// The ids of alice's posts, newest first.
    func postIDs(_ name: String = "alice") throws -> [Int64] {
        let user = try #require(try blog.store.user(named: name))
        return try blog.store.posts(ofUserID: user.id).map(\.id).sorted(by: >)
    }

    /// One GET (or `method`) over a new connection: the response.
    func get(_ target: String, accept: String? = nil, method: String = "GET", extra: [String: String] = [:]) async throws
        -> WireResponse {
        let port = web.port
        return try await onThread {
            let wire = try WireHTTP(port: port)
            var head = "\(method) \(target) HTTP/1.1\r\nHost: blog.example\r\nConnection: close\r\n"
            if let accept { head += "Accept: \(accept)\r\n" }
            for (name, value) in extra { head += "\(name): \(value)\r\n" }
            wire.send(head + "\r\n")
            return try wire.readResponse()
        }
    }

    /// A JSON body as a dictionary.
    static func json(_ response: WireResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "\(response.text)")
    }
}
