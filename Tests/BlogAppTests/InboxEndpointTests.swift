import BlogApp
import BlogLimits
import BlogWeb
import Foundation
import HTTPTypes
import Testing

/// The inboxes over real HTTP on loopback: the order of their checks
/// (budget, size, body, signature, signer, block), and what each activity
/// does, with stand-ins for the signature check and the storage
/// (`InboxFixture`).
@Suite("ActivityPub inbox")
struct InboxEndpointTests {
    @Test func followIsKeptAndAcceptedThenUndone() async throws {
        let f = try await InboxFixture()
        let follow = InboxFixture.activity("Follow", id: "https://social.example/follows/1", object: f.alice)
        let answer = try await f.post(follow)
        #expect(answer.status == 202, "\(answer.text)")
        let follower = try #require(f.actions.followers.first)
        #expect(follower.actor == InboxFixture.bob && follower.inbox == InboxFixture.bob + "/inbox")
        #expect(follower.sharedInbox == "https://social.example/inbox" && follower.followID == "https://social.example/follows/1")
        #expect(f.actions.accepted == [InboxFixture.bob])
        #expect(f.actions.accepts.map(\.userID) == [f.user.id])
        let embedded = try JSONSerialization.jsonObject(with: Data(follower.followJSON.utf8)) as? [String: String]
        #expect(embedded == ["id": "https://social.example/follows/1", "type": "Follow", "actor": InboxFixture.bob,
                             "object": f.alice])

        // The Undo through the shared inbox: the same.
        let undo = InboxFixture.activity("Undo", object: ["type": "Follow", "id": "https://social.example/follows/1",
                                                          "actor": InboxFixture.bob, "object": f.alice])
        #expect(try await f.post(undo, to: "/ap/inbox").status == 202)
        #expect(f.actions.followers.isEmpty)
        await f.close()
    }

    @Test func followWaitsWhenTheBlogDoesNotAcceptAtOnce() async throws {
        let f = try await InboxFixture(acceptsFollowers: false)
        #expect(try await f.post(InboxFixture.activity("Follow", object: f.alice), to: "/ap/inbox").status == 202)
        #expect(f.actions.followers.map(\.actor) == [InboxFixture.bob])
        #expect(f.actions.accepted.isEmpty && f.actions.accepts.isEmpty, "pending for the author")
        // An Undo by the Follow's id alone removes it too.
        let follow = try #require(f.actions.followers.first)
        #expect(try await f.post(InboxFixture.activity("Undo", object: follow.followID)).status == 202)
        #expect(f.actions.followers.isEmpty)
        await f.close()
    }

    @Test func replyWaitsForApprovalThenShowsUpdatesAndGoes() async throws {
        let f = try await InboxFixture()
        let note = InboxFixture.note(inReplyTo: f.postObject, content: "<p>Nice <b>post</b>, Alice!</p>")
        let created = try await f.post(InboxFixture.activity("Create", object: note), to: "/ap/inbox")
        #expect(created.status == 202, "\(created.text)")
        let response = try #require(f.actions.responses.first)
        #expect(response.kind == .reply && response.postID == f.postID && response.userID == f.user.id)
        #expect(response.content.text == "Nice post, Alice!" && response.content.source == "https://social.example/@bob/1")
        #expect(response.content.authorName == "Bob" && response.content.authorURL == "https://social.example/@bob")
        #expect(!f.postPage.contains("Nice post"), "pending until the author approves")

        // The existing approval, in the web client.
        let mention = try #require(try f.app.blog.store.webmentions(ofUserID: f.user.id, approved: false, limit: 10).first)
        let browser = AppFixture.Browser(ApplicationSet([WebmentionModeration(client: f.app.client, service: f.app.blog.service),
                                                         f.app.client]))
        browser.signIn("alice", "pw", register: false)
        let list = browser.get("/app/webmentions")
        #expect(list.text.contains("Nice post, Alice!"))
        _ = browser.post("/app/webmentions/\(mention.id)/approve", [("csrf", AppFixture.Browser.csrf(list))])
        #expect(f.postPage.contains("Nice post, Alice!") && f.postPage.contains("1 reply"))

        // A reply to the page's URL works the same; an Update edits, a Delete removes.
        let edited = InboxFixture.note(inReplyTo: f.postURL, content: "Edited: <i>nicer</i>")
        #expect(try await f.post(InboxFixture.activity("Update", object: edited)).status == 202)
        #expect(f.postPage.contains("Edited: nicer") && !f.postPage.contains("Nice post"))
        let tombstone: [String: Any] = ["type": "Tombstone", "id": "https://social.example/notes/1"]
        #expect(try await f.post(InboxFixture.activity("Delete", object: tombstone)).status == 202)
        #expect(f.actions.responses.isEmpty && !f.postPage.contains("Edited"))
        await f.close()
    }

    @Test func likeAndAnnounceAreCountedAndUndone() async throws {
        let f = try await InboxFixture()
        #expect(try await f.post(InboxFixture.activity("Like", id: "https://social.example/likes/1", object: f.postObject)).status == 202)
        #expect(try await f.post(InboxFixture.activity("Announce", id: "https://social.example/boosts/1",
                                                       object: ["id": f.postURL, "type": "Note"])).status == 202)
        #expect(f.actions.responses.map(\.kind) == [.like, .repost])
        #expect(f.actions.responses.allSatisfy { $0.postID == f.postID && $0.actor == InboxFixture.bob })
        let undoLike = InboxFixture.activity("Undo", object: ["type": "Like", "id": "https://social.example/likes/1",
                                                              "actor": InboxFixture.bob, "object": f.postObject])
        #expect(try await f.post(undoLike).status == 202)
        // An Undo that names only what was announced.
        #expect(try await f.post(InboxFixture.activity("Undo", object: ["type": "Announce", "object": f.postObject])).status == 202)
        #expect(f.actions.responses.isEmpty)
        await f.close()
    }

    @Test func deleteOfTheActorRemovesItEverywhere() async throws {
        let f = try await InboxFixture()
        #expect(try await f.post(InboxFixture.activity("Follow", object: f.alice)).status == 202)
        #expect(try await f.post(InboxFixture.activity("Like", object: f.postObject)).status == 202)
        #expect(try await f.post(InboxFixture.activity("Delete", object: InboxFixture.bob), to: "/ap/inbox").status == 202)
        #expect(f.actions.followers.isEmpty && f.actions.responses.isEmpty)
        await f.close()
    }

    @Test func whatIsNotOursIsAcceptedAndIgnored() async throws {
        let f = try await InboxFixture()
        let elsewhere = InboxFixture.note(inReplyTo: "https://other.example/notes/5", content: "hi")
        let cases = [
            InboxFixture.activity("Create", object: elsewhere),
            InboxFixture.activity("Create", object: InboxFixture.note(inReplyTo: AppFixture.base + "ap/alice/posts/999999", content: "x")),
            InboxFixture.activity("Like", object: "https://other.example/notes/5"),
            InboxFixture.activity("Follow", object: "https://other.example/users/carol"),
            InboxFixture.activity("Follow", object: AppFixture.base + "ap/nobody"),
            InboxFixture.activity("Move", object: InboxFixture.bob),
            InboxFixture.activity("Add", object: f.postObject),
        ]
        for body in cases {
            let answer = try await f.post(body, to: "/ap/inbox")
            #expect(answer.status == 202, "\(body): \(answer.text)")
        }
        #expect(f.actions.followers.isEmpty && f.actions.responses.isEmpty && f.actions.accepts.isEmpty)
        await f.close()
    }

    @Test func signaturesAndSignersAreChecked() async throws {
        let f = try await InboxFixture()
        let follow = InboxFixture.activity("Follow", object: f.alice)
        let unsigned = try await f.post(follow, keyID: nil)
        #expect(unsigned.status == 401 && unsigned.text.contains("no signature"))
        #expect(try await f.post(follow, keyID: "https://social.example/users/wrong#main-key").status == 401)
        let otherSigner = try await f.post(follow, keyID: "https://evil.example/users/mallory#main-key")
        #expect(otherSigner.status == 401 && otherSigner.text.contains("not signed by the activity's actor"))
        let later = try await f.post(follow, keyID: "https://social.example/users/slow#main-key")
        #expect(later.status == 503 && later.headers["retry-after"] != nil)
        #expect(f.actions.followers.isEmpty)
        await f.close()
    }

    @Test func hostileBodiesAreRefusedBeforeAnyKeyIsFetched() async throws {
        let f = try await InboxFixture()
        let bodies = ["{", "[]", String(repeating: "[", count: 5000), "{\"type\":\"Follow\",\"actor\":5}",
                      InboxFixture.activity("Follow", actor: "file:///etc/passwd", object: f.alice)]
        for body in bodies {
            let answer = try await f.post(body)
            #expect(answer.status == 400, "\(body.prefix(40)): \(answer.text)")
        }
        #expect(f.signatures.count == 0, "no key fetched for a body that is no activity")
        let large = try await f.post(String(repeating: " ", count: InboundActivity.maxBytes + 1))
        #expect(large.status == 413)
        #expect(try await f.post("{}", to: "/ap/nobody/inbox").status == 404)
        let get = try await onThread {
            let connection = try WireHTTP(port: f.web.port)
            connection.send("GET /ap/inbox HTTP/1.1\r\nHost: blog.example\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(get.status == 405 && get.headers["allow"] == "POST")
        #expect(f.actions.followers.isEmpty && f.actions.responses.isEmpty)
        await f.close()
    }

    @Test func blockedActorsAndHostsAreRefusedAndNothingIsKept() async throws {
        let f = try await InboxFixture()
        f.actions.block(InboxFixture.bob)
        let follow = try await f.post(InboxFixture.activity("Follow", object: f.alice))
        #expect(follow.status == 403)
        let reply = InboxFixture.activity("Create", object: InboxFixture.note(inReplyTo: f.postObject, content: "spam"))
        #expect(try await f.post(reply).status == 403)
        f.actions.block("spam.example")
        let carol = "https://spam.example/users/carol"
        let like = InboxFixture.activity("Like", actor: carol, object: f.postObject)
        #expect(try await f.post(like, keyID: carol + "#main-key").status == 403)
        #expect(f.actions.followers.isEmpty && f.actions.responses.isEmpty && f.actions.accepts.isEmpty)
        #expect(try f.app.blog.store.webmentions(ofUserID: f.user.id, approved: nil, limit: 10).isEmpty)
        await f.close()
    }

    @Test func aFloodFromOneAddressGets429BeforeItsBodyIsRead() async throws {
        let f = try await InboxFixture(budget: AddressBudget(perSecond: 1, burst: 5))
        let like = InboxFixture.activity("Like", object: f.postObject)
        var statuses: [Int] = []
        for _ in 0..<8 { statuses.append(try await f.post(like).status) }
        #expect(statuses == [202, 202, 202, 202, 202, 429, 429, 429])
        let refused = try await f.post(like)
        #expect(refused.headers["retry-after"] == "60")
        #expect(f.signatures.count == 5, "a refused request costs no signature check")
        await f.close()
    }
}

/// A signature check that waits until the test lets it go, telling the
/// test when it started.
final class HeldSignatures: InboxSignatureChecking {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)

    func signer(of request: WebRequest) -> Result<InboxSigner, InboxSignatureRefusal> {
        entered.signal()
        release.wait()
        return .success(InboxSigner(actor: InboxFixture.bob, inbox: InboxFixture.bob + "/inbox"))
    }
}

@Suite("ActivityPub inbox: slow key fetches")
struct InboxCheckingBoundTests {
    /// A key fetch that hangs holds one of the page server's threads: past
    /// `maxChecking` of them, the inbox answers 503 at once instead of
    /// taking the web client's threads too.
    @Test func checksPastTheBoundAreRefusedAtOnce() async throws {
        let f = try await InboxFixture()
        let held = HeldSignatures()
        let inbox = InboxEndpoint(baseURL: AppFixture.base, signatures: held, actions: f.actions, maxChecking: 1)
        let web = try await WebServer(folder: f.app.blog.publicFolder, host: "127.0.0.1", port: 0,
                                      logger: .init(label: "test.http"), limits: .patient, application: ApplicationSet([inbox, f.app.client]))
        let body = InboxFixture.activity("Like", object: f.postObject)
        let request = "POST /ap/inbox HTTP/1.1\r\nHost: blog.example\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        let port = web.port
        async let first = onThread {
            let connection = try WireHTTP(port: port)
            connection.send(request)
            return try connection.readResponse()
        }
        try await onThread { held.entered.wait() }
        let second = try await onThread {
            let connection = try WireHTTP(port: port)
            connection.send(request)
            return try connection.readResponse()
        }
        #expect(second.status == 503 && second.headers["retry-after"] == "10")
        // The web client still answers while the check waits.
        let page = try await onThread {
            let connection = try WireHTTP(port: port)
            connection.send("GET /app/ HTTP/1.1\r\nHost: blog.example\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(page.status < 500)
        held.release.signal()
        #expect(try await first.status == 202)
        #expect(f.actions.responses.map(\.kind) == [.like])
        await web.stop()
        await f.close()
    }
}
