import BlogCore
import BlogFetch
import BlogInboxFarm
import BlogModel
import BlogSignatures
import BlogTestSupport
import Dispatch
import Foundation
import Logging
import Testing

/// The ActivityPub delivery worker against an inbox farm: many hosts,
/// each a loopback address of its own, over real sockets, with real
/// signatures the farm checks. A fan-out reaches each inbox once; a host
/// down for a minute gets its delivery after the backoff; a host that
/// never answers, or answers slowly, holds only its own delivery; no host
/// sees more sends at once than the limit. Time is the test's clock; the
/// waits are for the farm's events.
@Suite("ActivityPub delivery against an inbox farm")
struct FarmDeliveryTests {
    static let base = ActivityDeliveryTests.base
    static let keyID = base + "ap/alice#main-key"
    /// One key for every test: making one takes a while in a debug build.
    static let pair = try! ActorKeyPair.generate()

    /// Signs as blogd does (draft-cavage `rsa-sha256`, wall-clock `Date`).
    struct Signer: RequestSigner {
        func signatureHeaders(method: String, url: String, body: [UInt8], keyID: String, privateKeyPEM: String,
                              date: Date) throws -> [(String, String)] {
            let pair = try ActorKeyPair(privateKeyPEM: privateKeyPEM)
            return try HTTPSignatureSigner.sign(method: method, url: url, body: body, keyID: keyID,
                                                privateKey: pair.privateKey, now: Date())
        }
    }

    static func farm(hosts: Int, clock: TestClock,
                     behaviour: @escaping (Int) -> FarmBehaviour = { _ in .accept }) throws -> InboxFarm {
        let check = try FarmSignatureCheck(keys: [keyID: pair.publicKeyPEM])
        return try InboxFarm(hosts: hosts, keepRequests: true, check: check, now: clock.closure, behaviour: behaviour)
    }

    /// Alice with the real key, queueing, and `followers` accepted.
    static func alice(_ store: any BlogStorage, followers: [(String, String, String?)]) throws -> UserRecord {
        store.queueActivities(true)
        let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
        _ = try store.storeActorKey(userID: alice.id, publicPEM: pair.publicKeyPEM, privatePEM: pair.privateKeyPEM, at: t0)
        for (index, (actor, inbox, shared)) in followers.enumerated() {
            _ = try store.addFollower(userID: alice.id, actorID: actor, inbox: inbox, sharedInbox: shared,
                                      followID: "\(actor)#follow-\(index)", accepted: true, at: t0)
        }
        return alice
    }

    /// `per` followers on every host: with the host's shared inbox, or each with its own inbox only.
    static func followers(on hosts: [FarmHost], per: Int, shared: (FarmHost) -> Bool) -> [(String, String, String?)] {
        hosts.flatMap { host in
            (0..<per).map { (host.actor("u\($0)"), host.inbox("u\($0)"), shared(host) ? host.sharedInbox : nil) }
        }
    }

    static func worker(_ store: any BlogStorage, clock: TestClock, http: any OutgoingHTTP = ActivityDeliveryTests.fetcher(),
                       perHost: Int = 2, batch: Int = 64) -> ActivityDelivery {
        var settings = ActivityDelivery.Settings()
        settings.batch = batch
        settings.pollInterval = nil
        settings.gather = 0
        settings.perHost = perHost
        let quiet = Logger(label: "test.delivery", factory: { _ in SwiftLogNoOpLogHandler() })
        return ActivityDelivery(storage: store, http: http, signer: Signer(), baseURL: base, settings: settings,
                                now: clock.closure, logger: quiet)
    }

    func offPool(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withTaskExecutorPreference(BlockingExecutor.shared) { try work() }
    }

    /// Runs `body` off the cooperative pool (it blocks) with a fresh store
    /// on `backend`, a test clock at `t0` and a farm of `hosts` behaving
    /// as `behaviour` says; closes both after.
    func withFarm(_ backend: Backend = .sqlite, hosts: Int,
                  behaviour: @escaping @Sendable (Int) -> FarmBehaviour = { _ in .accept },
                  _ body: @escaping @Sendable (any BlogStorage, TestClock, InboxFarm) throws -> Void) async throws {
        try await offPool {
            let (store, cleanUp) = try backend.open()
            defer {
                try? store.close()
                cleanUp()
            }
            let clock = TestClock(t0)
            let farm = try Self.farm(hosts: hosts, clock: clock, behaviour: behaviour)
            defer { farm.stop() }
            try body(store, clock, farm)
        }
    }

    /// Runs `sendDue` on a thread of its own (it blocks until its batch
    /// is settled); the returned semaphore is signalled when it is.
    static func sendInBackground(_ worker: ActivityDelivery) -> DispatchSemaphore {
        let settled = DispatchSemaphore(value: 0)
        // Not Dispatch's default pool: the HTTP client's tasks need it.
        Thread {
            _ = try? worker.sendDue()
            settled.signal()
        }.start()
        return settled
    }

    /// 30 hosts: the even ones' followers share their host's inbox, the
    /// odd ones' have only their own. Each shared inbox gets the post
    /// once, each personal inbox once, every one signed by alice's key;
    /// more deliveries than a batch, so the worker claims twice.
    @Test(arguments: Backend.available) func aFanOutReachesEachInboxOnceSigned(_ backend: Backend) async throws {
        try await withFarm(backend, hosts: 30) { store, clock, farm in
            let alice = try Self.alice(store, followers: Self.followers(on: farm.hosts, per: 5) { $0.index % 2 == 0 })
            let expected = 15 + 15 * 5
            let worker = Self.worker(store, clock: clock)
            worker.start()
            defer { worker.stop() }
            let post = try store.addPost(userID: alice.id, title: "Hello", content: "to the farm", at: t0)
            worker.wake()
            #expect(farm.wait(timeout: 600) { $0.accepted >= expected })
            #expect(waitUntil(timeout: 600) { worker.count(.delivered) == expected })
            for host in farm.hosts {
                let record = farm.record(host: host.index)
                if host.index % 2 == 0 {
                    #expect(record.byPath == ["/inbox": 1], "host \(host.index): \(record.byPath)")
                } else {
                    #expect(record.byPath == Dictionary(uniqueKeysWithValues: (0..<5).map { ("/users/u\($0)/inbox", 1) }),
                            "host \(host.index): \(record.byPath)")
                }
            }
            let totals = farm.totals
            #expect(totals.received == expected && totals.verified == expected && totals.badSignatures == 0,
                    "\(totals) \(farm.signatureProblems)")
            let bodies = Set(farm.hosts.flatMap { farm.record(host: $0.index).requests.map(\.body) })
            #expect(bodies.count == 1, "one rendering for every inbox")
            let create = try #require(try JSONSerialization.jsonObject(with: Data(bodies.first!)) as? [String: Any])
            #expect(create["id"] as? String == Self.base + "ap/alice/posts/\(post.id)#create")
            #expect(try store.deliveryCounts() == DeliveryCounts(queuedActivities: 0, queuedDeliveries: 0,
                                                                 delivered: expected, givenUp: 0))
        }
    }

    /// A host that answers 503 for a minute (of the test's clock): the
    /// others have their delivery at once; its own comes due after the
    /// first backoff (a minute), not a second before, and then arrives.
    @Test func aHostDownForAMinuteGetsItAfterTheBackoff() async throws {
        try await withFarm(hosts: 5, behaviour: { $0 == 0 ? .failUntil(t0 + 60) : .accept }) { store, clock, farm in
            let alice = try Self.alice(store, followers: Self.followers(on: farm.hosts, per: 2) { _ in true })
            let worker = Self.worker(store, clock: clock)
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            #expect(try worker.fanOutDue() == 1)
            #expect(try worker.sendDue() == 5)
            #expect(farm.record(host: 0).refused == 1 && farm.totals.accepted == 4)
            #expect(worker.count(.retry) == 1 && worker.count(.delivered) == 4)
            let waiting = try #require(try store.queuedDeliveries(limit: 9).first)
            #expect(waiting.inbox == farm.hosts[0].sharedInbox && waiting.due == t0 + 60)

            clock.advance(by: 59)
            #expect(try worker.sendDue() == 0, "not before its backoff")
            #expect(farm.record(host: 0).received == 1)
            clock.advance(by: 1)
            #expect(try worker.sendDue() == 1)
            #expect(farm.record(host: 0).accepted == 1 && farm.record(host: 0).received == 2)
            #expect(farm.totals.badSignatures == 0, "\(farm.signatureProblems)")
            #expect(try store.deliveryCounts() == DeliveryCounts(queuedActivities: 0, queuedDeliveries: 0, delivered: 5,
                                                                 givenUp: 0))
        }
    }

    /// A host that never answers: every other host has its delivery while
    /// that one's request is still open; when the fetcher's time limit
    /// ends it (the test says when), it is due again after the backoff,
    /// and delivered once the host answers.
    @Test func aHostThatNeverAnswersHoldsOnlyItsOwnDelivery() async throws {
        try await withFarm(hosts: 12, behaviour: { $0 == 0 ? .silent : .accept }) { store, clock, farm in
            let alice = try Self.alice(store, followers: Self.followers(on: farm.hosts, per: 1) { _ in true })
            let expiry = ExpiryGate()
            let http = RoutedHTTP(special: farm.hosts[0].base + "/", to: ActivityDeliveryTests.fetcher(expiry: expiry),
                                  others: ActivityDeliveryTests.fetcher())
            let worker = Self.worker(store, clock: clock, http: http)
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            try worker.fanOutDue()
            let settled = Self.sendInBackground(worker)
            #expect(farm.wait(timeout: 600) { $0.accepted == 11 && $0.received == 12 })
            #expect(farm.record(host: 0).inFlight == 1, "still waiting for its answer")
            expiry.expire()
            settled.wait()
            #expect(worker.count(.delivered) == 11 && worker.count(.retry) == 1)
            #expect(farm.wait(host: 0, timeout: 600) { $0.inFlight == 0 }, "the sender closed it")
            let waiting = try #require(try store.queuedDeliveries(limit: 9).first)
            #expect(waiting.inbox == farm.hosts[0].sharedInbox && waiting.due == t0 + 60)

            // The gate stays expired for that fetcher: the retry goes
            // through a worker with a plain one, as after a restart.
            farm.set(.accept, host: 0)
            clock.advance(by: 60)
            let next = Self.worker(store, clock: clock)
            #expect(try next.sendDue() == 1)
            #expect(farm.record(host: 0).accepted == 1 && next.count(.delivered) == 1)
            #expect(try store.deliveryCounts().queuedDeliveries == 0)
        }
    }

    /// The running worker with a silent host among twenty, whose four
    /// followers come first in the queue (so in the first batch): every
    /// other host's deliveries arrive, batch after batch, and are settled
    /// while the silent host still has its two sends open (its limit) and
    /// two claims waiting; when its time limit ends (the test says when)
    /// its four are due again after the backoff.
    @Test func aSilentHostDoesNotDelayTheOthersDeliveries() async throws {
        try await withFarm(hosts: 20, behaviour: { $0 == 0 ? .silent : .accept }) { store, clock, farm in
            let alice = try Self.alice(store, followers: Self.followers(on: farm.hosts, per: 4) { _ in false })
            let expiry = ExpiryGate()
            let http = RoutedHTTP(special: farm.hosts[0].base + "/", to: ActivityDeliveryTests.fetcher(expiry: expiry),
                                  others: ActivityDeliveryTests.fetcher())
            let worker = Self.worker(store, clock: clock, http: http, batch: 8)
            worker.start()
            defer { worker.stop() }
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            worker.wake()
            #expect(farm.wait(timeout: 600) { $0.accepted == 76 })
            #expect(waitUntil(timeout: 600) { worker.count(.delivered) == 76 })
            #expect(farm.wait(host: 0, timeout: 600) { $0.inFlight == 2 }, "still waiting for its answers")
            #expect(farm.record(host: 0).accepted == 0)
            #expect(try store.deliveryCounts().queuedDeliveries == 4)

            expiry.expire()
            #expect(waitUntil(timeout: 600) { worker.count(.retry) == 4 })
            #expect(farm.record(host: 0).peak == 2)
            let waiting = try store.queuedDeliveries(limit: 9)
            #expect(waiting.count == 4 && waiting.allSatisfy { $0.due == t0 + 60 })
        }
    }

    /// A slow host (held until the test lets it answer): every other host
    /// has its delivery meanwhile; the slow one's is delivered, not
    /// retried, once it answers.
    @Test func aSlowHostDoesNotHoldUpTheOthers() async throws {
        try await withFarm(hosts: 12, behaviour: { $0 == 0 ? .held : .accept }) { store, clock, farm in
            let alice = try Self.alice(store, followers: Self.followers(on: farm.hosts, per: 3) { $0.index != 0 })
            let worker = Self.worker(store, clock: clock)
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            try worker.fanOutDue()
            let settled = Self.sendInBackground(worker)
            // Host 0's three followers have inboxes of their own: two sends
            // at once there (its limit), both held, while the others finish.
            #expect(farm.wait(timeout: 600) { $0.accepted == 11 })
            #expect(farm.wait(host: 0, timeout: 600) { $0.inFlight == 2 })
            #expect(farm.record(host: 0).accepted == 0)
            farm.set(.accept, host: 0)
            farm.release(host: 0)
            settled.wait()
            #expect(farm.record(host: 0).accepted == 3)
            #expect(worker.count(.delivered) == 14 && worker.count(.retry) == 0)
        }
    }

    /// Every host holds its requests until the test lets go: each has
    /// exactly the limit under way at once (`perHost` lanes), never more,
    /// though it has six deliveries waiting.
    @Test(arguments: [1, 2]) func sendsToOneHostStayWithinTheLimit(_ perHost: Int) async throws {
        try await withFarm(hosts: 4, behaviour: { _ in .held }) { store, clock, farm in
            let alice = try Self.alice(store, followers: Self.followers(on: farm.hosts, per: 6) { _ in false })
            let worker = Self.worker(store, clock: clock, perHost: perHost)
            _ = try store.addPost(userID: alice.id, title: "t", content: "c", at: t0)
            try worker.fanOutDue()
            let settled = Self.sendInBackground(worker)
            // The fetcher allows 8 at once in all: 4 hosts × 2 fit.
            #expect(farm.wait(timeout: 600) { $0.inFlight == 4 * perHost })
            for host in farm.hosts {
                farm.set(.accept, host: host.index)
                farm.release(host: host.index)
            }
            settled.wait()
            #expect(worker.count(.delivered) == 24)
            for host in farm.hosts {
                let record = farm.record(host: host.index)
                #expect(record.accepted == 6 && record.peak == perHost, "host \(host.index): peak \(record.peak)")
            }
        }
    }
}
