import BlogTestSupport
import BlogWire
import Foundation
import Synchronization
import Testing
import BlogModel
import BlogPages
@testable import BlogCore

/// The sender's poll-before-page gap: a poll that lands between a post
/// change's commit and its page write sends nothing of that change (the
/// receiver would fetch a page without the link, or, for a deletion,
/// with it still there); once the pages show it the service wakes the
/// sender, which sends. Each poll here is the sender's own claim-and-send
/// (`sendDue`), run at a chosen moment: no thread, no sleep.
@Suite("Webmention sending waits for the page")
struct WebmentionPageGapTests {
    /// Runs `between` right after each commit of a new post or a trashing,
    /// before the service writes the pages.
    final class PollAfterCommit: ForwardingStorage, @unchecked Sendable {
        let between = Mutex<(@Sendable (Int64) -> Void)?>(nil)

        override func insertPost(userID: Int64, title: String, content: String, contentHTML: String?,
                                 categories: [String], weight: Int, place: Place?, photos: [PhotoAttachment], at date: Date,
                                 layout: PageLayout, token: UUID) throws(StorageError) -> NewPost {
            let stored = try super.insertPost(userID: userID, title: title, content: content, contentHTML: contentHTML,
                                              categories: categories, weight: weight, place: place, photos: photos, at: date,
                                              layout: layout, token: token)
            between.withLock { $0 }?(stored.record.id)
            return stored
        }

        override func trashPost(id: Int64, ofUserID userID: Int64, at date: Date) throws(StorageError) -> PostRecord? {
            let trashed = try super.trashPost(id: id, ofUserID: userID, at: date)
            between.withLock { $0 }?(id)
            return trashed
        }
    }

    /// A receiver whose every page names its endpoint; records the sends.
    final class Receiver: OutgoingHTTP {
        let sent = Mutex<[String]>([])

        func get(_ url: String, headers: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
            HTTPAnswer(url: url, status: 200, headers: ["link": "<https://them.example/wm>; rel=\"webmention\""], body: [])
        }

        func postForm(_ url: String, fields: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
            sent.withLock { $0.append(fields.first { $0.0 == "target" }?.1 ?? "") }
            return HTTPAnswer(url: url, status: 202, headers: [:], body: [])
        }

        func post(_ url: String, headers: [(String, String)], body: [UInt8],
                  maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
            HTTPAnswer(url: url, status: 202, headers: [:], body: [])
        }
    }

    /// What one poll saw: rows sent, rows queued and due, the page there.
    struct Poll: Equatable {
        var sent: Int
        var dueRows: Int
        var pageWritten: Bool
    }

    @Test func aPollBetweenCommitAndPageSendsNothingThenTheWakeSends() throws {
        let storage = Mutex<PollAfterCommit?>(nil)
        try withService(storage: { store in
            let polling = PollAfterCommit(store)
            storage.withLock { $0 = polling }
            return polling
        }) { (fx: ServiceFixture) throws in
            let polling = try #require(storage.withLock { $0 })
            fx.store.queueWebmentions(with: MentionLinks { LinkedText.urls(in: $0) })
            let receiver = Receiver()
            var settings = WebmentionSender.Settings()
            settings.pollInterval = nil
            let clock = fx.clock
            let sender = WebmentionSender(storage: fx.store, http: receiver, baseURL: "http://blog.test/", settings: settings,
                                          now: { clock.now })
            let folder = fx.publicFolder
            @Sendable func poll(_ file: String) -> Poll {
                let due = (try? fx.store.queuedWebmentions(limit: 10).filter { $0.due <= clock.now }.count) ?? -1
                let sent = (try? sender.sendDue()) ?? -1
                return Poll(sent: sent, dueRows: due,
                            pageWritten: FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path))
            }
            let between = Mutex<[Poll]>([]), woken = Mutex<[Poll]>([])
            let file = Mutex("")
            polling.between.withLock { $0 = { _ in between.withLock { $0.append(poll(file.withLock { $0 })) } } }
            fx.service.webmentionsQueued { woken.withLock { $0.append(poll(file.withLock { $0 })) } }

            var session = Session(peerAddress: "192.0.2.10")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            file.withLock { $0 = PageRenderer.postFile(user: "alice", id: 1) }
            #expect(fx.send("newpost:alice:Linked:see https://them.example/post", &session) == .posted)
            #expect(between.withLock { $0 } == [Poll(sent: 0, dueRows: 1, pageWritten: false)],
                    "committed and due, but its page is not written: nothing sent")
            #expect(woken.withLock { $0 } == [Poll(sent: 1, dueRows: 1, pageWritten: true)], "the page first, then the send")
            #expect(receiver.sent.withLock { $0 } == ["https://them.example/post"])

            // A deletion: the page still shows the link until it is a tombstone.
            file.withLock { $0 = PageRenderer.goneFile(user: "alice", id: 1) }
            #expect(fx.send("delpost:alice:1", &session) == .deleted)
            #expect(between.withLock { $0 }.last == Poll(sent: 0, dueRows: 1, pageWritten: false))
            #expect(woken.withLock { $0 }.last == Poll(sent: 1, dueRows: 1, pageWritten: true))
            #expect(receiver.sent.withLock { $0 } == ["https://them.example/post", "https://them.example/post"])
            #expect(try fx.store.queuedWebmentions(limit: 10).isEmpty)
        }
    }

    /// Holds nest and are per user: another user's rows go meanwhile, and
    /// the held user's once every hold is let go.
    @Test func holdsArePerUserAndNest() throws {
        try withService { (fx: ServiceFixture) throws in
            fx.store.queueWebmentions(with: MentionLinks { LinkedText.urls(in: $0) })
            #expect(fx.send("register:alice:pw") == .registered)
            #expect(fx.send("register:bob:pw") == .registered)
            #expect(fx.send("newpost:alice:A:https://a.example/") == .posted)
            #expect(fx.send("newpost:bob:B:https://b.example/") == .posted)
            let alice = try #require(try fx.store.user(named: "alice")).id
            fx.store.holdWebmentions(ofUserID: alice)
            fx.store.holdWebmentions(ofUserID: alice)
            let now = fx.clock.now.addingTimeInterval(1)
            #expect(try fx.store.claimWebmentions(dueBy: now, lease: 60, limit: 10).map(\.target) == ["https://b.example/"])
            fx.store.releaseWebmentions(ofUserID: alice)
            #expect(try fx.store.claimWebmentions(dueBy: now, lease: 60, limit: 10).isEmpty, "one hold left")
            fx.store.releaseWebmentions(ofUserID: alice)
            #expect(try fx.store.claimWebmentions(dueBy: now, lease: 60, limit: 10).map(\.target) == ["https://a.example/"])
        }
    }
}
