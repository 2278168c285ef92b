import BlogCore
import BlogFetch
import BlogPostgres
import BlogSQLite
import BlogTestSupport
import Dispatch
import Foundation
import Logging
import Synchronization
import Testing
import BlogModel

/// The ActivityPub delivery worker over loopback HTTP inboxes, on every
/// backend: a post's activity fanned out once per inbox, signed, retried
/// with backoff on the test's clock, given up, handed on across a restart,
/// and shared by two workers on one PostgreSQL database.
@Suite("ActivityPub delivery")
struct ActivityDeliveryTests {
    static let base = "http://blog.test/"

    /// Signs with a stand-in: the key id and a digest of the key, so the
    /// test sees which blog's key signed.
    struct StubSigner: RequestSigner {
        func signatureHeaders(method: String, url: String, body: [UInt8], keyID: String, privateKeyPEM: String,
                              date: Date) throws -> [(String, String)] {
            [("Date", "\(Int(date.timeIntervalSince1970))"),
             ("Signature", "keyId=\"\(keyID)\",key=\"\(privateKeyPEM)\",length=\"\(body.count)\"")]
        }
    }

    /// An inbox host answering POSTs from a script of statuses (202 once
    /// it runs out).
    final class InboxHost: Sendable {
        /// The statuses still to answer.
        final class Script: Sendable {
            let statuses: Mutex<[Int]>
            init(_ statuses: [Int]) { self.statuses = Mutex(statuses) }
            func next() -> Int { statuses.withLock { $0.isEmpty ? 202 : $0.removeFirst() } }
        }

        let server: HTTPStubServer

        init(statuses: [Int] = []) throws {
            let script = Script(statuses)
            server = try HTTPStubServer { _ in .init(status: script.next()) }
        }

        func inbox(_ path: String) -> String { server.url(path) }
        var posts: [HTTPStubServer.Request] { server.requests.filter { $0.method == "POST" } }
    }

    /// A database that can be opened again (a restart, a second instance).
    struct Database {
        let open: () throws -> any BlogStorage
        let cleanUp: () -> Void

        init(_ backend: Backend) throws {
            switch backend {
            case .sqlite:
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apdelivery-\(UUID().uuidString)")
                let path = folder.appendingPathComponent("blog.sqlite").path
                open = { try SQLiteStore(path: path) }
                cleanUp = { try? FileManager.default.removeItem(at: folder) }
            case .postgres:
                let url = try PostgresCluster.shared().makeDatabase()
                let quiet = Logger(label: "test.delivery", factory: { _ in SwiftLogNoOpLogHandler() })
                open = { try PostgresStore(location: PostgresLocation(url: url, environment: [:]), logger: quiet) }
                cleanUp = {}
            }
        }
    }

    static func fetcher(expiry: ExpiryGate? = nil) -> any OutgoingHTTP {
        let settings = FetchSettings(timeLimit: .seconds(600), allowPrivateAddresses: true)
        guard let expiry else { return FetcherHTTP(OutgoingFetcher(settings: settings)) }
        return FetcherHTTP(OutgoingFetcher(settings: settings, expiry: expiry.wait))
    }

    static func worker(_ store: any BlogStorage, clock: TestClock, http: any OutgoingHTTP = fetcher(),
                       batch: Int = 64) -> ActivityDelivery {
        var settings = ActivityDelivery.Settings()
        settings.pollInterval = nil
        settings.gather = 0
        settings.batch = batch
        let quiet = Logger(label: "test.delivery", factory: { _ in SwiftLogNoOpLogHandler() })
        return ActivityDelivery(storage: store, http: http, signer: StubSigner(), baseURL: base, settings: settings,
                                now: clock.closure, logger: quiet)
    }

    /// Alice, with a key, queueing, and accepted followers at `inboxes`
    /// (actor id, inbox, shared inbox).
    static func alice(_ store: any BlogStorage, followers: [(String, String, String?)]) throws -> UserRecord {
        store.queueActivities(true)
        let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
        _ = try store.storeActorKey(userID: alice.id, publicPEM: "alice-public", privatePEM: "alice-private", at: t0)
        for (index, (actor, inbox, shared)) in followers.enumerated() {
            _ = try store.addFollower(userID: alice.id, actorID: actor, inbox: inbox, sharedInbox: shared,
                                      followID: "f\(index)", accepted: true, at: t0)
        }
        return alice
    }

    /// Runs `work` on a Dispatch thread, in the test's own task (so its
    /// expectations count): the waits in it (a worker's batch, a stub
    /// inbox) must not hold one of the cooperative pool's few threads,
    /// which the fetcher's own async work needs.
    func offPool(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withTaskExecutorPreference(BlockingExecutor.shared) { try work() }
    }

    static func json(_ request: HTTPStubServer.Request) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
    }

    @Test(arguments: Backend.available) func aPostReachesEachInboxOnceSigned(_ backend: Backend) async throws {
        try await offPool {
            let database = try Database(backend)
            defer { database.cleanUp() }
            let store = try database.open()
            defer { try? store.close() }
            let shared = try InboxHost(), personal = try InboxHost()
            defer { [shared, personal].forEach { $0.server.stop() } }
            let alice = try Self.alice(store, followers: [
                ("https://a.test/u/1", shared.inbox("/u/1/inbox"), shared.inbox("/inbox")),
                ("https://a.test/u/2", shared.inbox("/u/2/inbox"), shared.inbox("/inbox")),
                ("https://a.test/u/3", shared.inbox("/u/3/inbox"), shared.inbox("/inbox")),
                ("https://b.test/u/1", personal.inbox("/u/1/inbox"), nil),
                ("https://b.test/u/2", personal.inbox("/u/2/inbox"), nil),
            ])
            let clock = TestClock(t0)
            let worker = Self.worker(store, clock: clock)
            worker.start()
            defer { worker.stop() }

            let post = try store.addPost(userID: alice.id, title: "Hello", content: "a <b>post</b>", at: t0)
            worker.wake()
            #expect(waitUntil(timeout: 60) { shared.posts.count == 1 && personal.posts.count == 2 })
            #expect(waitUntil(timeout: 60) { worker.count(.delivered) == 3 })
            #expect(shared.posts.map(\.path) == ["/inbox"], "the shared inbox once")
            #expect(personal.posts.map(\.path).sorted() == ["/u/1/inbox", "/u/2/inbox"])
            let request = try #require(shared.posts.first)
            #expect(request.headers["content-type"] == "application/activity+json")
            #expect(request.headers["signature"] == "keyId=\"\(Self.base)ap/alice#main-key\",key=\"alice-private\",length=\"\(request.body.count)\"")
            let object = Self.base + "ap/alice/posts/\(post.id)"
            let create = Self.json(request)
            #expect(create["type"] as? String == "Create" && create["id"] as? String == object + "#create")
            #expect(create["actor"] as? String == Self.base + "ap/alice")
            let note = try #require(create["object"] as? [String: Any])
            #expect(note["type"] as? String == "Note" && note["id"] as? String == object)
            #expect((note["content"] as? String)?.contains("a &lt;b&gt;post&lt;/b&gt;") == true, "text, never markup")
            #expect(personal.posts.allSatisfy { $0.body == request.body }, "one rendering for every inbox")

            // An edit is an Update, a delete a Delete of a Tombstone.
            let edited = t0.addingTimeInterval(120)
            _ = try store.editPost(id: post.id, ofUserID: alice.id, title: "Hello", content: "edited", weight: 1, at: edited)
            worker.wake()
            #expect(waitUntil(timeout: 60) { shared.posts.count == 2 && personal.posts.count == 4 })
            let update = Self.json(shared.posts[1])
            #expect(update["type"] as? String == "Update")
            #expect(update["id"] as? String == object + "#update-\(Int64(edited.timeIntervalSince1970 * 1000))")
            _ = try store.trashPost(id: post.id, ofUserID: alice.id, at: t0)
            worker.wake()
            #expect(waitUntil(timeout: 60) { shared.posts.count == 3 && personal.posts.count == 6 })
            let delete = Self.json(shared.posts[2])
            #expect(delete["type"] as? String == "Delete" && delete["id"] as? String == object + "#delete")
            #expect((delete["object"] as? [String: Any])?["type"] as? String == "Tombstone")
            #expect(waitUntil(timeout: 60) { (try? store.deliveryCounts()) == DeliveryCounts(
                queuedActivities: 0, queuedDeliveries: 0, delivered: 9, givenUp: 0) })
        }
    }

    /// A host that fails for a while gets it after its backoff (on the
    /// test's clock); 401 is retried (its server may fetch our key late);
    /// 400 is given up at once; 410 removes the inbox's followers.
    @Test(arguments: Backend.available) func failuresBackOffThenSucceedOrGiveUp(_ backend: Backend) async throws {
        try await offPool {
            let database = try Database(backend)
            defer { database.cleanUp() }
            let store = try database.open()
            defer { try? store.close() }
            let flaky = try InboxHost(statuses: [503, 401, 429]), refusing = try InboxHost(statuses: [400]),
                gone = try InboxHost(statuses: [410])
            defer { [flaky, refusing, gone].forEach { $0.server.stop() } }
            let alice = try Self.alice(store, followers: [
                ("https://f.test/u", flaky.inbox("/inbox"), nil), ("https://r.test/u", refusing.inbox("/inbox"), nil),
                ("https://g.test/u", gone.inbox("/u/inbox"), gone.inbox("/inbox")),
                ("https://g.test/v", gone.inbox("/v/inbox"), gone.inbox("/inbox")),
            ])
            let clock = TestClock(t0)
            let worker = Self.worker(store, clock: clock)
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            #expect(try worker.fanOutDue() == 1)
            #expect(try worker.sendDue() == 3)
            #expect(worker.count(.retry) == 1 && worker.count(.givenUp) == 1 && worker.count(.gone) == 1)
            #expect(try store.followerCount(ofUserID: alice.id, state: nil) == 2, "the gone inbox's followers removed")
            for (attempt, posts) in [(1, 2), (2, 3), (3, 4)] {
                let queued = try #require(try store.queuedDeliveries(limit: 9).first)
                #expect(queued.attempts == attempt && queued.due == clock.now + worker.settings.retryDelay(afterAttempt: attempt))
                clock.advance(by: worker.settings.retryDelay(afterAttempt: attempt) - 1)
                #expect(try worker.sendDue() == 0, "not before its time")
                clock.advance(by: 1)
                #expect(try worker.sendDue() == 1)
                #expect(flaky.posts.count == posts)
            }
            #expect(worker.count(.delivered) == 1 && worker.count(.retry) == 3)
            #expect(try store.deliveryCounts() == DeliveryCounts(queuedActivities: 0, queuedDeliveries: 0, delivered: 1,
                                                                 givenUp: 2))
            #expect(refusing.posts.count == 1 && gone.posts.count == 1)
            #expect(worker.settings.retryDelay(afterAttempt: 1) == 60 && worker.settings.retryDelay(afterAttempt: 3) == 240)
            #expect(worker.settings.retryDelay(afterAttempt: 20) == 6 * 3600, "at most six hours apart")
        }
    }

    /// A host that never stops failing is given up once three days have
    /// passed since the fan-out, and counted.
    @Test func aHostThatKeepsFailingIsGivenUpAfterDays() async throws {
        try await offPool {
            let database = try Database(.sqlite)
            defer { database.cleanUp() }
            let store = try database.open()
            defer { try? store.close() }
            let down = try InboxHost(statuses: Array(repeating: 500, count: 100))
            defer { down.server.stop() }
            let alice = try Self.alice(store, followers: [("https://d.test/u", down.inbox("/inbox"), nil)])
            let clock = TestClock(t0)
            let worker = Self.worker(store, clock: clock)
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            try worker.fanOutDue()
            var tries = 0
            while let queued = try store.queuedDeliveries(limit: 1).first, tries < 100 {
                clock.advance(by: max(0, queued.due.timeIntervalSince(clock.now)))
                #expect(try worker.sendDue() == 1)
                tries += 1
            }
            #expect(worker.count(.givenUp) == 1 && worker.count(.retry) == tries - 1)
            #expect(clock.now.timeIntervalSince(t0) >= worker.settings.giveUpAfter)
            #expect(clock.now.timeIntervalSince(t0) < worker.settings.giveUpAfter + worker.settings.maxRetry)
            #expect(tries == down.posts.count && tries < 25, "\(tries) tries")
            #expect(try store.deliveryCounts().givenUp == 1)
        }
    }

    /// A host that never answers holds only its own delivery, until the
    /// fetcher's time limit (ended by the test) makes it a retry.
    @Test func aHostThatNeverAnswersIsRetried() async throws {
        try await offPool {
            let database = try Database(.sqlite)
            defer { database.cleanUp() }
            let store = try database.open()
            defer { try? store.close() }
            let release = DispatchSemaphore(value: 0)
            let silent = try HTTPStubServer { _ in
                release.wait()
                return .init(status: 202)
            }
            let fine = try InboxHost()
            defer {
                release.signal()
                silent.stop()
                fine.server.stop()
            }
            let alice = try Self.alice(store, followers: [("https://s.test/u", silent.url("/inbox"), nil),
                                                          ("https://o.test/u", fine.inbox("/inbox"), nil)])
            let expiry = ExpiryGate()
            let clock = TestClock(t0)
            // The silent host's fetches end when the test says; the other's
        // are not touched by that.
        let http = RoutedHTTP(special: silent.url("/"), to: Self.fetcher(expiry: expiry), others: Self.fetcher())
        let worker = Self.worker(store, clock: clock, http: http)
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            try worker.fanOutDue()
            let sent = DispatchSemaphore(value: 0)
            // A thread of its own, not Dispatch's default pool: the HTTP
            // client's tasks need that pool (docs/testing.md).
            Thread {
                _ = try? worker.sendDue()
                sent.signal()
            }.start()
            #expect(waitUntil(timeout: 60) { fine.posts.count == 1 && silent.requests.count == 1 })
            expiry.expire()
            sent.wait()
            #expect(worker.count(.delivered) == 1 && worker.count(.retry) == 1)
            let queued = try #require(try store.queuedDeliveries(limit: 9).first)
            #expect(queued.inbox == silent.url("/inbox") && queued.due == t0 + 60)
        }
    }

    /// A worker that dies mid-way (some sent, one claimed and never
    /// settled): the next one, on the same database, sends every
    /// remaining delivery once, the claimed one when its lease ends.
    @Test(arguments: Backend.available) func aRestartSendsEachRemainingDeliveryOnce(_ backend: Backend) async throws {
        try await offPool {
            let database = try Database(backend)
            defer { database.cleanUp() }
            let hosts = try (0..<5).map { _ in try InboxHost() }
            defer { hosts.forEach { $0.server.stop() } }
            let clock = TestClock(t0)
            do {
                let store = try database.open()
                let alice = try Self.alice(store, followers: hosts.enumerated().map { index, host in
                    ("https://h\(index).test/u", host.inbox("/inbox"), nil)
                })
                _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
                let first = Self.worker(store, clock: clock, batch: 2)
                try first.fanOutDue()
                #expect(try first.sendDue() == 2)
                // The claim of a worker that dies before settling it.
                #expect(try store.claimDeliveries(dueBy: clock.now, lease: first.settings.lease, limit: 1).count == 1)
                try store.close()
            }
            let store = try database.open()
            defer { try? store.close() }
            store.queueActivities(true)
            let second = Self.worker(store, clock: clock)
            #expect(try second.sendDue() == 2)
            #expect(try second.sendDue() == 0, "the dead worker's claim waits for its lease")
            clock.advance(by: second.settings.lease)
            #expect(try second.sendDue() == 1)
            #expect(hosts.map(\.posts.count) == [1, 1, 1, 1, 1])
            #expect(try store.deliveryCounts().queuedDeliveries == 0)
        }
    }

    /// A batch's sends run at most `perHost` at once to one host and
    /// `concurrency` in all: an inbox client that holds every POST until
    /// `concurrency` are under way sees exactly that many, never more
    /// than two to one host.
    @Test func sendsAreBoundedPerHostAndInAll() async throws {
        try await offPool {
            let database = try Database(.sqlite)
            defer { database.cleanUp() }
            let store = try database.open()
            defer { try? store.close() }
            var followers: [(String, String, String?)] = []
            for host in 0..<4 {
                for path in 0..<4 {
                    followers.append(("https://h\(host).test/u/\(path)", "https://h\(host).test/u/\(path)/inbox", nil))
                }
            }
            let alice = try Self.alice(store, followers: followers)
            let held = HeldHTTP(opensAt: 5)
            var settings = ActivityDelivery.Settings()
            settings.pollInterval = nil
            settings.concurrency = 5
            let worker = ActivityDelivery(storage: store, http: held, signer: StubSigner(), baseURL: Self.base,
                                          settings: settings, now: TestClock(t0).closure)
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            try worker.fanOutDue()
            #expect(try worker.sendDue() == 16)
            #expect(worker.count(.delivered) == 16)
            let seen = held.seen
            #expect(seen.total == 5 && seen.perHost == 2, "\(seen)")
        }
    }

    /// Two instances on one PostgreSQL database, both running: every
    /// delivery is sent exactly once.
    @Test(.enabled(if: PostgresCluster.enabled)) func twoWorkersOnOnePostgresDatabaseSendEachOnce() async throws {
        try await offPool {
            let database = try Database(.postgres)
            let hosts = try (0..<6).map { _ in try InboxHost() }
            defer { hosts.forEach { $0.server.stop() } }
            let one = try database.open(), two = try database.open()
            defer {
                try? one.close()
                try? two.close()
            }
            var followers: [(String, String, String?)] = []
            for (index, host) in hosts.enumerated() {
                for path in 0..<8 { followers.append(("https://h\(index).test/u/\(path)", host.inbox("/u/\(path)/inbox"), nil)) }
            }
            let alice = try Self.alice(one, followers: followers)
            two.queueActivities(true)
            let clock = TestClock(t0)
            let workers = [Self.worker(one, clock: clock, batch: 5), Self.worker(two, clock: clock, batch: 5)]
            workers.forEach { $0.start() }
            defer { workers.forEach { $0.stop() } }
            _ = try one.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            _ = try two.addPost(userID: alice.id, title: "u", content: "d", at: t0)
            workers.forEach { $0.wake() }
            #expect(waitUntil(timeout: 120) { hosts.map(\.posts.count).reduce(0, +) >= 96 })
            // A worker counts a settle after its commit: wait on the counts,
            // then the rows are gone.
            func delivered() -> Int { workers.map { $0.count(.delivered) }.reduce(0, +) }
            #expect(waitUntil(timeout: 60) { delivered() >= 96 })
            #expect(delivered() == 96)
            #expect(try one.deliveryCounts().queuedDeliveries == 0)
            for host in hosts {
                let bodies = Dictionary(grouping: host.posts) { "\($0.path) \(Self.json($0)["id"] as? String ?? "")" }
                #expect(bodies.count == 16 && bodies.values.allSatisfy { $0.count == 1 }, "each delivery once")
            }
        }
    }
}

/// One client for the URLs under `special`, another for the rest.
struct RoutedHTTP: OutgoingHTTP {
    let special: String
    let to: any OutgoingHTTP
    let others: any OutgoingHTTP

    private func client(_ url: String) -> any OutgoingHTTP { url.hasPrefix(special) ? to : others }

    func get(_ url: String, headers: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        try await client(url).get(url, headers: headers, maxBytes: maxBytes)
    }

    func postForm(_ url: String, fields: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        try await client(url).postForm(url, fields: fields, maxBytes: maxBytes)
    }

    func post(_ url: String, headers: [(String, String)], body: [UInt8],
              maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        try await client(url).post(url, headers: headers, body: body, maxBytes: maxBytes)
    }
}

/// An inbox client that holds every POST until `opensAt` are under way
/// at once (then lets all through, for good), and notes the most under
/// way in all and to one host.
final class HeldHTTP: StubHTTP {
    private struct State {
        var open = false
        var inFlight: [String: Int] = [:]
        var total = 0
        var most = (total: 0, perHost: 0)
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    let opensAt: Int

    init(opensAt: Int) { self.opensAt = opensAt }

    var seen: (total: Int, perHost: Int) { state.withLock { $0.most } }

    func post(_ url: String, headers: [(String, String)], body: [UInt8],
              maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        let host = ActorHost.authority(of: url)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let release: [CheckedContinuation<Void, Never>] = state.withLock { state in
                state.inFlight[host, default: 0] += 1
                state.total += 1
                state.most = (max(state.most.total, state.total), max(state.most.perHost, state.inFlight[host]!))
                if state.total >= opensAt { state.open = true }
                guard !state.open else {
                    defer { state.waiting = [] }
                    return state.waiting + [continuation]
                }
                state.waiting.append(continuation)
                return []
            }
            release.forEach { $0.resume() }
        }
        state.withLock { state in
            state.inFlight[host, default: 1] -= 1
            state.total -= 1
        }
        return HTTPAnswer(url: url, status: 202, headers: [:], body: [])
    }
}
