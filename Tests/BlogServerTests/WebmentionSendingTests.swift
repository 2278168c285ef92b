import BlogCore
import BlogFetch
import BlogModel
import BlogPages
import BlogTestSupport
import Dispatch
import Foundation
import Testing

/// Webmention sending end to end over loopback HTTP: posts over the blog
/// port queue their links in their own commit, and the sender discovers
/// each receiver's endpoint (a `Link` header, a `<link>`, a relative
/// `<a>`) and POSTs source and target; retries wait on the test's clock.
@Suite("Webmention sending", .offPool)
struct WebmentionSendingTests {
    static let base = "http://blog.test/"

    /// The server's own fetcher, allowed loopback (or not).
    static func fetcher(allowPrivate: Bool = true) -> any OutgoingHTTP {
        FetcherHTTP(OutgoingFetcher(settings: FetchSettings(timeLimit: .seconds(600), allowPrivateAddresses: allowPrivate)))
    }

    /// A receiver whose page at `/post` names its endpoint as `discovery`
    /// says, and whose endpoint answers `endpointStatus` (202 by default).
    final class Receiver: Sendable {
        enum Discovery: Sendable { case header, linkElement, relativeAnchor }

        let server: HTTPStubServer
        private let statuses: Locked<[Int]>

        init(_ discovery: Discovery, endpointStatuses: [Int] = []) throws {
            let statuses = Locked(endpointStatuses)
            self.statuses = statuses
            server = try HTTPStubServer { request in
                if request.method == "POST" {
                    let status = statuses.withLock { $0.isEmpty ? 202 : $0.removeFirst() }
                    return .init(status: status)
                }
                switch discovery {
                case .header:
                    return .html("<p>a post</p>", headers: [("Link", "<https://elsewhere.test/x>; rel=\"other\", </wm/header?k=v>; rel=\"webmention\"")])
                case .linkElement:
                    return .html("<html><head><!-- <link rel=webmention href=/wrong> --><link href=\"/wm/link\" rel=\"Webmention\"></head></html>")
                case .relativeAnchor:
                    return .html("<body><a rel=\"nofollow webmention\" href=\"wm/anchor?a=1&amp;b=2\">send</a></body>")
                }
            }
        }

        var url: String { server.url("/dir/post") }
        /// The Webmentions the endpoint got: (path, source, target).
        var mentions: [(path: String, source: String, target: String)] {
            server.requests.filter { $0.method == "POST" }.map { ($0.path, $0.form["source"] ?? "", $0.form["target"] ?? "") }
        }
    }

    private func sender(_ f: ServerFixture, http: any OutgoingHTTP = WebmentionSendingTests.fetcher()) -> WebmentionSender {
        var settings = WebmentionSender.Settings()
        settings.pollInterval = nil
        let clock = f.clock
        let sender = WebmentionSender(storage: f.store, http: http, baseURL: Self.base, settings: settings,
                                      now: { TestBlog.date(of: clock) }, logger: f.logger)
        f.service.webmentionsQueued { sender.wake() }
        return sender
    }

    private func fixture() throws -> ServerFixture {
        let f = try ServerFixture()
        f.store.queueWebmentions(with: MentionLinks { LinkedText.urls(in: $0) })
        return f
    }

    @Test func aPostAnEditAndADeleteEachMentionTheirLinks() throws {
        let f = try fixture()
        let header = try Receiver(.header), element = try Receiver(.linkElement), anchor = try Receiver(.relativeAnchor)
        let sender = sender(f)
        sender.start()
        defer {
            sender.stop()
            _ = f.tearDown()
            [header, element, anchor].forEach { $0.server.stop() }
        }
        try f.registerAndLogin("alice")
        #expect(try f.ask("newpost:alice:Links:see \(header.url) and \(element.url).[E];") == "post:OK[E];")
        let alice = try #require(try f.store.user(named: "alice"))
        let post = try #require(try f.store.posts(ofUserID: alice.id).first)
        let source = Self.base + "alice/\(post.id).html"
        #expect(waitUntil(timeout: 60) { header.mentions.count == 1 && element.mentions.count == 1 })
        #expect(header.mentions.first! == ("/wm/header?k=v", source, header.url), "relative to the target, query kept")
        #expect(element.mentions.first! == ("/wm/link", source, element.url))

        // The edit drops one link and adds another: all three hear of it.
        #expect(try f.ask("editpost:alice:\(post.id):Links:now \(element.url) and \(anchor.url)[E];") == "edit:OK[E];")
        #expect(waitUntil(timeout: 60) {
            header.mentions.count == 2 && element.mentions.count == 2 && anchor.mentions.count == 1
        })
        #expect(anchor.mentions.first! == ("/dir/wm/anchor?a=1&b=2", source, anchor.url), "relative, entities decoded")

        // The delete: the page answers 410, and the old links hear of it.
        #expect(try f.ask("delpost:alice:\(post.id)[E];") == "del:OK[E];")
        #expect(FileManager.default.fileExists(atPath: f.publicFolder.appendingPathComponent("alice/\(post.id).html.gone").path))
        #expect(waitUntil(timeout: 60) { element.mentions.count == 3 && anchor.mentions.count == 2 })
        #expect(header.mentions.count == 2, "no longer linked before the delete")
        // The sender counts a settle after its commit: wait on the count.
        #expect(waitUntil(timeout: 60) { sender.count(.sent) >= 7 })
        #expect(sender.count(.sent) == 7)
        #expect(try f.store.queuedWebmentions(limit: 9).isEmpty)
    }

    @Test func aFailingReceiverGetsItAfterARetry() throws {
        let f = try fixture()
        let receiver = try Receiver(.header, endpointStatuses: [503])
        let sender = sender(f)
        sender.start()
        defer {
            sender.stop()
            _ = f.tearDown()
            receiver.server.stop()
        }
        try f.registerAndLogin("bob")
        #expect(try f.ask("newpost:bob:Link:\(receiver.url)[E];") == "post:OK[E];")
        #expect(waitUntil(timeout: 60) { sender.count(.retry) == 1 })
        let queued = try #require(try f.store.queuedWebmentions(limit: 9).first)
        #expect(queued.attempts == 1)
        #expect(queued.due == TestBlog.date(of: f.clock) + sender.settings.retryDelay(afterAttempt: 1))
        // Not yet due: a look now sends nothing.
        f.clock.advance(by: sender.settings.firstRetry - 1)
        #expect(try sender.sendDue() == 0)
        f.clock.advance(by: 1)
        sender.wake()
        #expect(waitUntil(timeout: 60) { sender.count(.sent) == 1 })
        #expect(receiver.mentions.count == 2)
        #expect(try f.store.queuedWebmentions(limit: 9).isEmpty)
    }

    @Test func aReceiverThatNeverRecoversIsGivenUp() throws {
        let f = try fixture()
        let receiver = try Receiver(.header, endpointStatuses: Array(repeating: 500, count: 20))
        var settings = WebmentionSender.Settings()
        settings.maxAttempts = 3
        settings.pollInterval = nil
        let clock = f.clock
        let sender = WebmentionSender(storage: f.store, http: Self.fetcher(), baseURL: Self.base, settings: settings,
                                      now: { TestBlog.date(of: clock) }, logger: f.logger)
        defer {
            _ = f.tearDown()
            receiver.server.stop()
        }
        try f.registerAndLogin("carol")
        #expect(try f.ask("newpost:carol:Link:\(receiver.url)[E];") == "post:OK[E];")
        for attempt in 1...3 {
            #expect(try sender.sendDue() == 1)
            f.clock.advance(by: settings.retryDelay(afterAttempt: attempt))
        }
        #expect(receiver.mentions.count == 3)
        #expect(sender.count(.retry) == 2 && sender.count(.failed) == 1)
        #expect(try f.store.queuedWebmentions(limit: 9).isEmpty)
        // Each wait twice the one before.
        #expect(settings.retryDelay(afterAttempt: 1) == 60 && settings.retryDelay(afterAttempt: 3) == 240)
    }

    @Test func aNewSenderSendsWhatWasQueuedBeforeARestart() throws {
        let f = try fixture()
        let receiver = try Receiver(.linkElement)
        defer {
            _ = f.tearDown()
            receiver.server.stop()
        }
        try f.registerAndLogin("dave")
        // No sender running: the post's commit queued it.
        #expect(try f.ask("newpost:dave:Link:\(receiver.url)[E];") == "post:OK[E];")
        #expect(try f.store.queuedWebmentions(limit: 9).count == 1)
        // A sender that claimed it and died: the lease runs out first.
        _ = try f.store.claimWebmentions(dueBy: TestBlog.date(of: f.clock), lease: 600, limit: 9)
        let restarted = sender(f)
        #expect(try restarted.sendDue() == 0, "leased to the sender that died")
        f.clock.advance(by: 600)
        restarted.start()
        defer { restarted.stop() }
        #expect(waitUntil(timeout: 60) { receiver.mentions.count == 1 })
        #expect(waitUntil(timeout: 60) { (try? f.store.queuedWebmentions(limit: 9).isEmpty) == true })
    }

    @Test func privateAddressesAreRefusedWhenNotAllowed() throws {
        let f = try fixture()
        let receiver = try Receiver(.header)
        let sender = sender(f, http: WebmentionSendingTests.fetcher(allowPrivate: false))
        defer {
            _ = f.tearDown()
            receiver.server.stop()
        }
        try f.registerAndLogin("erin")
        #expect(try f.ask("newpost:erin:Link:\(receiver.url)[E];") == "post:OK[E];")
        #expect(try sender.sendDue() == 1)
        #expect(sender.count(.failed) == 1 && receiver.server.requests.isEmpty)
        #expect(try f.store.queuedWebmentions(limit: 9).isEmpty, "not tried again")
    }

    /// An endpoint's answer counts by its status: a long body (past what
    /// the sender reads) does not make an accepted send a failure.
    @Test func aLongAnswerFromTheEndpointStillCountsAsSent() throws {
        let f = try fixture()
        let receiver = try HTTPStubServer { request in
            request.method == "POST" ? .html(String(repeating: "thanks ", count: 40_000))
                : .html("<p>post</p>", headers: [("Link", "</wm>; rel=webmention")])
        }
        let sender = sender(f)
        defer {
            _ = f.tearDown()
            receiver.stop()
        }
        try f.registerAndLogin("gus")
        #expect(try f.ask("newpost:gus:Link:\(receiver.url("/p"))[E];") == "post:OK[E];")
        #expect(try sender.sendDue() == 1)
        #expect(sender.count(.sent) == 1)
    }

    /// `stop` cancels the sends under way rather than wait for them (the
    /// fetcher's own time limit here is an hour): the row is due again.
    @Test func stopCancelsASendUnderWay() throws {
        let f = try fixture()
        let release = DispatchSemaphore(value: 0)
        let receiver = try HTTPStubServer { _ in
            release.wait()
            return .init(status: 500)
        }
        let http = FetcherHTTP(OutgoingFetcher(settings: FetchSettings(timeLimit: .seconds(3600), allowPrivateAddresses: true)))
        let sender = sender(f, http: http)
        sender.start()
        defer {
            release.signal()
            receiver.stop()
            _ = f.tearDown()
        }
        try f.registerAndLogin("hal")
        #expect(try f.ask("newpost:hal:Link:\(receiver.url("/slow"))[E];") == "post:OK[E];")
        #expect(waitUntil(timeout: 60) { receiver.requests.count == 1 })
        sender.stop()
        #expect(sender.count(.retry) == 1, "cancelled, recorded, due again")
        let row = try #require(try f.store.queuedWebmentions(limit: 9).first)
        #expect(row.attempts == 1 && row.due > TestBlog.date(of: f.clock))
    }

    @Test func aPostWithoutLinksQueuesNothing() throws {
        let f = try fixture()
        defer { _ = f.tearDown() }
        try f.registerAndLogin("fay")
        #expect(try f.ask("newpost:fay:Plain:no links, not even ftp://x.example[E];") == "post:OK[E];")
        #expect(try f.store.queuedWebmentions(limit: 9).isEmpty)
    }
}
