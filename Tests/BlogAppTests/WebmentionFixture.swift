import BlogApp
import BlogCore
import BlogFetch
import BlogLimits
import BlogModel
import BlogTestSupport
import BlogWeb
import Foundation
import HTTPTypes
import Logging
import Testing

/// A blog with the Webmention endpoint on a real page server on loopback,
/// a source site (`LoopbackHTTPServer`) and a sender, so that every
/// Webmention crosses real HTTP both ways: sent to the endpoint, and the
/// source fetched by the verifier (private addresses allowed, as the
/// tests must). The verifier is drained by hand: no waiting for a loop.
final class WebmentionFixture: @unchecked Sendable {
    let app: AppFixture
    let user: UserRecord
    let postID: Int64
    let web: WebServer
    let source: LoopbackHTTPServer
    let verifier: WebmentionVerifier
    let sender: OutgoingFetcher
    let gate = ExpiryGate()

    /// `alice`'s post, as its URL on the site.
    var target: String { "\(AppFixture.base)alice/\(postID).html" }
    var endpoint: String { "http://127.0.0.1:\(web.port)/webmention" }
    var postPage: String { app.file("alice/\(postID).html") ?? "" }

    init(budget: AddressBudget = AddressBudget(perSecond: 1000, burst: 1000), maxBytes: Int = 1 << 20) async throws {
        app = try AppFixture()
        try app.blog.service.moderateAddUser("alice", password: "pw")
        user = try #require(try app.blog.store.user(named: "alice"))
        let secret = try app.tokens.issue(userID: user.id, kind: .bearer, scopes: [.create], label: "t", lifetime: nil).secret
        let created = app.micropub.respond(to: WebRequest(
            method: .post, path: "/micropub",
            headers: [.contentType: "application/x-www-form-urlencoded", .authorization: "Bearer \(secret)"],
            body: Array("h=entry&name=First&content=Hello".utf8), peerAddress: "203.0.113.5", secure: true))
        let location = try #require(created.headers[.location])
        postID = try #require(Int64(location.split(separator: "/").last!.dropLast(5)))
        let clock = app.blog.clock
        // The gate ends a fetch's time limit when the test says; the real
        // limit is far off.
        let fetcher = OutgoingFetcher(settings: FetchSettings(maxBytes: maxBytes, timeLimit: .seconds(600),
                                                              allowPrivateAddresses: true),
                                      expiry: gate.wait)
        verifier = WebmentionVerifier(service: app.blog.service, fetcher: fetcher, now: { TestBlog.date(of: clock) })
        let endpoint = WebmentionEndpoint(service: app.blog.service, budget: budget)
        web = try await WebServer(folder: app.blog.publicFolder, host: "127.0.0.1", port: 0, logger: Logger(label: "test.http"),
                                  limits: .patient, application: ApplicationSet([endpoint, WebmentionModeration(client: app.client, service: app.blog.service),
                                                               app.client]))
        source = try await LoopbackHTTPServer.start()
        sender = OutgoingFetcher(settings: FetchSettings(timeLimit: .seconds(600), allowPrivateAddresses: true))
    }

    func close() async throws {
        try await source.close()
        await web.stop()
    }

    /// Sends a Webmention over HTTP; the status and the answer's text.
    func send(source: String, target: String? = nil) async throws -> (status: Int, text: String) {
        let response = try await sender.postForm(endpoint, fields: [("source", source), ("target", target ?? self.target)])
        return (response.status, response.text)
    }

    /// A source page: an h-entry by Bob replying to the post (or liking it).
    static func reply(to target: String, text: String, property: String = "u-in-reply-to", name: String = "Bob") -> String {
        """
        <!DOCTYPE html><html><body>
        <article class="h-entry">
          <a class="p-author h-card" href="https://bob.example/"><img class="u-photo" src="/me.jpg" alt="">\(name)</a>
          <a class="\(property)" href="\(target)">a post</a>
          <div class="e-content">\(text)</div>
        </article></body></html>
        """
    }
}
