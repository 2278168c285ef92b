import BlogCore
import BlogModel
import BlogTestSupport
import Foundation
import Synchronization
import Testing

/// The delivery worker against a name with a wildcard DNS record: 300
/// followers' own inboxes on `a1.x.example` … `a300.x.example`, one server
/// that refuses every connection, ahead of a good server's 20 in claim
/// order. They are one host for the window and the claims (four places,
/// the good server's 20 delivered meanwhile); each name is a server of
/// its own for the backoff, so each is tried once, and then waits for
/// its retry.
@Suite("ActivityPub delivery: wildcard subdomains are one host")
struct DeliveryHostKeyWindowTests {
    @Test func aRefusingNamesWildcardInboxesTakeFourPlacesAndOneTryEach() async throws {
        try await withTaskExecutorPreference(BlockingExecutor.shared) {
            let (store, cleanUp) = try Backend.sqlite.open()
            defer {
                try? store.close()
                cleanUp()
            }
            let clock = TestClock(t0)
            // "https://a…" sorts before "https://good…": the wildcard name's come first.
            let wildcard = (1...300).map { ("https://a\($0).x.example/u", "https://a\($0).x.example/u/inbox", String?.none) }
            let good = (1...20).map { ("https://good.example/u\($0)", "https://good.example/u\($0)/inbox", String?.none) }
            let alice = try ActivityDeliveryTests.alice(store, followers: wildcard + good)
            let http = RefusingNameHTTP(refusing: "x.example")
            let worker = ActivityDeliveryTests.worker(store, clock: clock, http: http)
            #expect(worker.settings.heldPerHost == 4)
            worker.start()
            defer { worker.stop() }
            _ = try store.addPost(userID: alice.id, title: "t", content: "to everyone", at: t0)
            worker.wake()

            #expect(waitUntil(timeout: 600) { worker.count(.delivered) == 20 })
            let retry = t0 + worker.settings.retryDelay(afterAttempt: 1)
            #expect(waitUntil(timeout: 600) {
                let queued = (try? store.queuedDeliveries(limit: 1000)) ?? []
                return queued.count == 300 && queued.allSatisfy { $0.due == retry }
            }, "every one of the name's deliveries waits for its retry")
            let queued = try store.queuedDeliveries(limit: 1000)
            #expect(queued.allSatisfy { $0.host == "x.example" && $0.attempts == 1 })
            #expect(http.posts(to: "x.example") == 300, "each name once, not again before its retry")
            // Counted after the settle's commit: a moment after the rows show it.
            #expect(waitUntil(timeout: 60) { worker.count(.retry) >= 300 })
            #expect(worker.count(.retry) == 300)
            #expect(http.posts(to: "good.example") == 20)
        }
    }
}

/// An inbox client whose one name (delivery host key) refuses every
/// connection and whose other names take every POST; counts POSTs by key.
final class RefusingNameHTTP: StubHTTP {
    private let refusing: String
    private let counts = Mutex<[String: Int]>([:])

    init(refusing: String) { self.refusing = refusing }

    func posts(to key: String) -> Int { counts.withLock { $0[key, default: 0] } }

    func post(_ url: String, headers: [(String, String)], body: [UInt8],
              maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        let key = ActorHost.deliveryKey(of: url)
        counts.withLock { $0[key, default: 0] += 1 }
        if key == refusing { throw .failed("connection refused") }
        return HTTPAnswer(url: url, status: 202, headers: [:], body: [])
    }
}
