@testable import BlogApp
import BlogSockets
import BlogWeb
import BlogWire
import Foundation
import HTTPTypes
import Testing

/// One rule for a post, whichever door it comes in by: the same invalid
/// post sent through the blog port, the web client and Micropub is refused
/// for the same reason (`FieldError`), in each door's words, and nothing is
/// stored.
@Suite
struct FrontDoorTests {
    let app: AppFixture

    init() throws {
        app = try AppFixture(maxTextBytes: 100)
    }

    /// Titles every door must refuse, with the rule each breaks. (A blank
    /// title is no such case: Micropub reads a blank `name` as none, a
    /// note, whose title comes from its text.)
    static let badTitles: [(String, FieldError)] = [
        (String(repeating: "t", count: FieldRules.maxTitleCharacters + 1), .titleTooLong),
        ("bell\u{07}", .controlCharacters),
    ]

    @Test(arguments: 0 ..< badTitles.count)
    func theSameBadTitleIsRefusedByEveryDoor(_ index: Int) throws {
        let (title, error) = Self.badTitles[index]
        // The rule itself.
        #expect(throws: error) { try Title(title) }
        let user = try #require(try signedUpUser("door\(index)"))

        // The blog port: err:ARGS, as docs/protocol.md says of a field
        // outside its rules.
        #expect(try exchange("login:door\(index):pw[E];") == "log:OK[E];")
        #expect(try exchange("newpost:door\(index):\(title):text[E];") == "err:ARGS[E];")

        // The web client: 400 with the rule in words.
        let browser = AppFixture.Browser(app.client)
        browser.signIn("door\(index)", "pw", register: false)
        let web = browser.post("/app/posts", [("csrf", browser.csrf), ("title", title), ("content", "text")])
        #expect(web.status == .badRequest)
        #expect(web.text.contains(WebClient.explain(error)))

        // Micropub: invalid_request with the same words.
        let micropub = sendMicropub("h=entry&name=\(Self.formEncode(title))&content=text", userID: user)
        #expect(micropub.status == .badRequest)
        #expect(micropub.text.contains("invalid_request"))
        #expect(micropub.text.contains(WebClient.explain(error)))

        #expect(try app.blog.store.posts(ofUserID: user).isEmpty)
    }

    /// Text over the configured limit: the web client and Micropub refuse
    /// it with the same words; the blog port's frame holds the whole
    /// message to the same limit and answers err:SIZE.
    @Test func textOverTheLimitIsRefusedByEveryDoor() throws {
        let user = try #require(try signedUpUser("long"))
        let text = String(repeating: "x", count: 101)
        let error = FieldError.contentTooLong(maxBytes: 100)
        #expect(throws: error) { try PostText(text, maxBytes: 100) }

        let browser = AppFixture.Browser(app.client)
        browser.signIn("long", "pw", register: false)
        let web = browser.post("/app/posts", [("csrf", browser.csrf), ("title", "T"), ("content", text)])
        #expect(web.status == .badRequest && web.text.contains(WebClient.explain(error)))

        let micropub = sendMicropub("h=entry&name=T&content=\(text)", userID: user)
        #expect(micropub.status == .badRequest && micropub.text.contains(WebClient.explain(error)))
        #expect(try app.blog.store.posts(ofUserID: user).isEmpty)
    }

    // MARK: - The doors

    private func signedUpUser(_ name: String) throws -> Int64? {
        try app.blog.service.moderateAddUser(name, password: "pw")
        return try app.blog.store.user(named: name)?.id
    }

    /// Sends `messages` on one connection to the blog port, half-closes,
    /// and returns every reply until the server closes.
    private func exchange(_ messages: String) throws -> String {
        let socket = try Socket.connect(to: try SocketAddress(ip: app.blog.host, port: app.blog.port),
                                        until: .distant)
        defer { socket.close() }
        try socket.sendAll(Array(messages.utf8))
        socket.shutdownWrite()
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let result = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0) }
            guard case .done(let count) = result else {
                _ = socket.wait(for: Int16(POLLIN), until: .distant)
                continue
            }
            if count == 0 { break }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    private func sendMicropub(_ body: String, userID: Int64) -> WebResponse {
        let secret = try! app.tokens.issue(userID: userID, kind: .bearer, scopes: [.create], label: "t", lifetime: nil).secret
        return app.micropub.respond(to: WebRequest(method: .post, path: "/micropub",
                                                   headers: [.contentType: "application/x-www-form-urlencoded",
                                                             .authorization: "Bearer \(secret)"],
                                                   body: Array(body.utf8), peerAddress: "203.0.113.5", secure: true))
    }

    private static func formEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}
