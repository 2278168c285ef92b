import BlogApp
import BlogCore
import BlogLimits
import BlogModel
import BlogPages
import BlogTestSupport
import BlogWeb
import Foundation
import HTTPTypes
import Testing

/// Webmentions received end to end over loopback HTTP: the endpoint's
/// answers, verification against a real source server, approval in the
/// web client, the post's page, updates and removal; and hostile senders.
@Suite("Webmention receiving")
struct WebmentionReceivingTests {
    @Test func replyIsVerifiedApprovedShownUpdatedAndRemoved() async throws {
        let f = try await WebmentionFixture()
        f.source.set("/reply", .page(WebmentionFixture.reply(to: f.target, text: "Great post!")))
        let sent = try await f.send(source: f.source.url("/reply"))
        #expect(sent.status == 202, "\(sent.text)")
        let queued = try #require(try f.app.blog.store.webmentions(ofUserID: f.user.id, approved: nil, limit: 10).first)
        #expect(queued.status == .queued)

        #expect(await f.verifier.drain() == [queued.id: .verified])
        let verified = try #require(try f.app.blog.store.webmention(id: queued.id))
        #expect(verified.content.kind == .reply && verified.content.authorName == "Bob")
        #expect(verified.content.authorURL == "https://bob.example/")
        #expect(verified.content.authorPhoto == f.source.url("/me.jpg"), "relative to the source")
        #expect(verified.content.text == "Great post!")
        #expect(!f.postPage.contains("Great post!"), "pending until the author approves")

        // Approval in the web client, with its CSRF token.
        let browser = AppFixture.Browser(ApplicationSet([WebmentionModeration(client: f.app.client, service: f.app.blog.service),
                                                         f.app.client]))
        browser.signIn("alice", "pw", register: false)
        let list = browser.get("/app/webmentions")
        #expect(list.status == .ok && list.text.contains("Great post!"))
        let forged = browser.post("/app/webmentions/\(queued.id)/approve", [("csrf", "wrong")])
        #expect(forged.status == .forbidden)
        #expect(try f.app.blog.store.webmention(id: queued.id)?.approved == false)
        let approved = browser.post("/app/webmentions/\(queued.id)/approve", [("csrf", AppFixture.Browser.csrf(list))])
        #expect(approved.status == .seeOther || approved.status == .found, "\(approved.status)")
        #expect(f.postPage.contains("Great post!"))
        #expect(f.postPage.contains("1 reply"))
        #expect(f.postPage.contains("href=\"https://bob.example/\""))

        // The source changes and sends again: verified again, the page updated.
        f.source.set("/reply", .page(WebmentionFixture.reply(to: f.target, text: "Edited: even better.")))
        #expect(try await f.send(source: f.source.url("/reply")).status == 202)
        #expect(await f.verifier.drain() == [queued.id: .verified])
        #expect(f.postPage.contains("Edited: even better.") && !f.postPage.contains("Great post!"))

        // The source is deleted (410) and sends again: removed, and from the page.
        f.source.set("/reply", .page("gone", status: 410))
        #expect(try await f.send(source: f.source.url("/reply")).status == 202)
        #expect(await f.verifier.drain() == [queued.id: .removed])
        #expect(try f.app.blog.store.webmention(id: queued.id) == nil)
        #expect(!f.postPage.contains("Edited") && !f.postPage.contains("class=\"responses\""))
        try await f.close()
    }

    @Test func theEndpointIsAdvertisedOnEveryPage() throws {
        var settings = BlogService.Settings()
        settings.pagesNameWebmention = true
        let head = PageRenderer.webmentionLink(PageRenderer.webmentionPath)
        #expect(String(decoding: head, as: UTF8.self) == "<link rel=\"webmention\" href=\"webmention\">\n")
        #expect(settings.pagesNameWebmention)
    }

    @Test func refusedAtOnce() async throws {
        let f = try await WebmentionFixture()
        let other = "https://other.example/alice/\(f.postID).html"
        let cases: [(source: String, target: String, reason: String)] = [
            (f.source.url("/x"), other, "not a post on this site"),
            (f.source.url("/x"), AppFixture.base + "alice/999999.html", "names no post"),
            (f.source.url("/x"), AppFixture.base + "nobody/\(f.postID).html", "names no post"),
            ("ftp://bob.example/x", f.target, "source must be"),
            ("javascript:alert(1)", f.target, "source must be"),
            (f.source.url("/x"), "mailto:alice@example.com", "target must be"),
            (f.target, f.target, "must differ"),
        ]
        for refused in cases {
            let answer = try await f.send(source: refused.source, target: refused.target)
            #expect(answer.status == 400, "\(refused)")
            #expect(answer.text.contains(refused.reason), "\(answer.text)")
        }
        #expect(try f.app.blog.store.webmentions(ofUserID: nil, approved: nil, limit: 10).isEmpty, "nothing stored")
        #expect(f.source.seen.isEmpty, "nothing fetched")
        try await f.close()
    }

    @Test func hostileSourcesAreRemoved() async throws {
        let f = try await WebmentionFixture(maxBytes: 64 * 1024)
        f.source.set("/unrelated", .page("<p>Nothing to see: <a href=\"https://blog.example/alice/\">not the post</a></p>"))
        f.source.set("/huge", .stream(chunkSize: 16 * 1024, chunks: 256))
        f.source.set("/private", .redirect(to: "http://[::1]:1/"))
        for path in ["/unrelated", "/huge"] {
            #expect(try await f.send(source: f.source.url(path)).status == 202)
        }
        let outcomes = await f.verifier.drain()
        #expect(outcomes.count == 2 && outcomes.values.allSatisfy { $0 == .removed }, "\(outcomes)")
        #expect(try f.app.blog.store.webmentions(ofUserID: nil, approved: nil, limit: 10).isEmpty)
        try await f.close()
    }

    @Test func aSlowSourceIsTriedAgainLater() async throws {
        let f = try await WebmentionFixture()
        f.source.set("/slow", .silence)
        #expect(try await f.send(source: f.source.url("/slow")).status == 202)
        async let outcomes = f.verifier.drain()
        await f.source.waitForRequests(1)
        f.gate.expire()
        let id = try #require(try f.app.blog.store.webmentions(ofUserID: nil, approved: nil, limit: 10).first?.id)
        #expect(await outcomes == [id: .retried])
        let waiting = try #require(try f.app.blog.store.webmention(id: id))
        #expect(waiting.status == .queued && waiting.attempts == 1)
        #expect(waiting.nextAttemptAt > TestBlog.date(of: f.app.blog.clock), "not due again at once")
        try await f.close()
    }

    @Test func aFloodFromOneAddressIsRefused() async throws {
        let f = try await WebmentionFixture(budget: AddressBudget(perSecond: 0, burst: 5))
        f.source.set("/reply", .page(WebmentionFixture.reply(to: f.target, text: "hi")))
        var statuses: [Int] = []
        for n in 0..<8 { statuses.append(try await f.send(source: f.source.url("/reply?n=\(n)")).status) }
        #expect(statuses == [202, 202, 202, 202, 202, 429, 429, 429])
        #expect(try f.app.blog.store.webmentions(ofUserID: nil, approved: nil, limit: 100).count == 5)
        try await f.close()
    }

    @Test func aBlogsWaitingListIsBounded() async throws {
        let f = try await WebmentionFixture()
        for n in 0..<BlogService.webmentionsWaitingLimit {
            _ = try f.app.blog.store.queueWebmention(userID: f.user.id, postID: f.postID, source: "https://s\(n).example/",
                                                     target: f.target, at: Date())
        }
        let refused = try await f.send(source: f.source.url("/one-more"))
        #expect(refused.status == 503 && refused.text.contains("too many Webmentions are waiting"))
        #expect(try f.app.blog.store.unapprovedWebmentionCount(ofUserID: f.user.id) == BlogService.webmentionsWaitingLimit)
        // Approving (or rejecting) one makes room.
        let first = try #require(try f.app.blog.store.webmentions(ofUserID: f.user.id, approved: false, limit: 1).first)
        _ = try f.app.blog.service.removeWebmention(id: first.id, ofUserID: f.user.id)
        #expect(try await f.send(source: f.source.url("/one-more")).status == 202)
        try await f.close()
    }

    @Test func markupInTheSourceIsShownAsText() async throws {
        let f = try await WebmentionFixture()
        let hostile = "<script>alert(1)</script><b>bold</b> &lt;img src=x onerror=alert(2)&gt; <a href=\"javascript:x\">link</a>"
        f.source.set("/evil", .page(WebmentionFixture.reply(to: f.target, text: hostile,
                                                           name: "Mallory &lt;/span&gt;&lt;script&gt;")))
        #expect(try await f.send(source: f.source.url("/evil")).status == 202)
        let outcomes = await f.verifier.drain()
        let id = try #require(outcomes.first?.key)
        #expect(outcomes[id] == .verified)
        let stored = try #require(try f.app.blog.store.webmention(id: id))
        #expect(stored.content.text == "bold <img src=x onerror=alert(2)> link", "text only: no script, no tags")
        _ = try f.app.blog.service.approveWebmention(id: id, ofUserID: nil)
        let page = f.postPage
        #expect(page.contains("bold &lt;img src=x onerror=alert(2)&gt; link"))
        #expect(page.contains("Mallory &lt;/span&gt;&lt;script&gt;"))
        #expect(!page.contains("<script") && !page.contains("<b>") && !page.contains("javascript:"))
        try await f.close()
    }

    @Test func aThousandResponsesArePaged() async throws {
        let f = try await WebmentionFixture()
        let store = f.app.blog.store
        for n in 0..<1000 {
            let mention = try store.queueWebmention(userID: f.user.id, postID: f.postID, source: "https://s\(n).example/r",
                                                    target: f.target, at: Date(timeIntervalSince1970: 0))
            _ = try store.storeVerification(id: mention.id, content: WebmentionContent(
                kind: n % 3 == 0 ? .like : .reply, authorName: "Reader \(n)", text: "Reply number \(n)"), at: Date())
            _ = try store.approveWebmention(id: mention.id, ofUserID: nil)
        }
        // One more through the service writes the pages.
        let last = try store.queueWebmention(userID: f.user.id, postID: f.postID, source: "https://last.example/r",
                                             target: f.target, at: Date(timeIntervalSince1970: 0))
        try f.app.blog.service.storeWebmentionVerification(id: last.id, content: WebmentionContent(kind: .reply, text: "The last"))
        _ = try f.app.blog.service.approveWebmention(id: last.id, ofUserID: nil)
        let page = f.postPage
        #expect(page.components(separatedBy: "<li class=\"h-cite").count - 1 == ResponsesRenderer.onPostPage)
        #expect(page.contains("All 1001 responses") && page.contains("334 likes") && page.contains("667 replies"))
        #expect(page.utf8.count < 32 * 1024, "bounded: \(page.utf8.count) bytes")
        #expect(page.contains("The last"), "newest first")
        for number in 1...11 {
            let file = try #require(f.app.file(ResponsesRenderer.file(user: "alice", postID: f.postID, page: number)))
            let items = file.components(separatedBy: "<li class=\"h-cite").count - 1
            #expect(items == (number < 11 ? 100 : 1), "page \(number)")
        }
        #expect(f.app.file(ResponsesRenderer.file(user: "alice", postID: f.postID, page: 12)) == nil)
        // The pages are a function of the database: a repair finds nothing to change.
        #expect(try f.app.blog.service.repairPages().rebuilt.isEmpty)
        // Removing one response rewrites the pages; the last page goes.
        _ = try f.app.blog.service.removeWebmention(id: last.id, ofUserID: nil)
        #expect(f.app.file(ResponsesRenderer.file(user: "alice", postID: f.postID, page: 11)) == nil)
        #expect(f.postPage.contains("All 1000 responses"))
        #expect(try f.app.blog.service.repairPages().rebuilt.isEmpty)
        try await f.close()
    }
}
