@testable import BlogCore
import BlogModel
import BlogTestSupport
import Dispatch
import Foundation
import Logging
import Synchronization
import Testing

/// The loop the Webmention sender and the ActivityPub delivery share, over
/// a queue in memory on the test's clock and sends held at a gate:
/// wake-ups while the loop is busy are one more look after it, a full
/// batch is followed at once, a claim stays leased until settled or its
/// lease ends, the sends are bounded per host and in all (across batches),
/// a host that never answers holds up only its own claims, finished sends
/// are settled in groups, and a stop cancels the sends under way and
/// settles them.
@Suite("BackgroundSender")
struct BackgroundSenderTests {
    static let quiet = Logger(label: "test.sender") { _ in SwiftLogNoOpLogHandler() }

    static func sender(_ clock: TestClock, batch: Int = 8, perHost: Int = 1, concurrency: Int = .max,
                       lease: Double = 600) -> BackgroundSender<Queue> {
        BackgroundSender(thread: "test-sender", queue: "test queue",
                         settings: .init(batch: batch, lease: lease, perHost: perHost, concurrency: concurrency,
                                         pollInterval: nil, gather: 0),
                         now: clock.closure, logger: quiet)
    }

    /// The loop is free while its sends are under way; wake-ups that come
    /// while it is busy (here, writing a settle) are one more look after it.
    @Test func wakeUpsWhileTheLoopIsBusyAreOneMoreLook() {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: true))
        queue.add(1, host: "a")
        let release = queue.holdNextSettle()
        let sender = Self.sender(clock)
        sender.start(queue)
        #expect(waitUntil(timeout: 600) { queue.settlesBegun.withLock { $0 } == 1 })
        queue.add(2, host: "a")
        for _ in 0..<3 { sender.wake() }
        release.signal()
        #expect(waitUntil(timeout: 600) { sender.count(.sent) == 2 })
        sender.stop()
        #expect(queue.looks.all.map(\.ids) == [[1], [2]], "three wake-ups, one look")
        sender.stop()
    }

    @Test func aFullBatchIsFollowedAtOnce() {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: true))
        for id in 1...5 { queue.add(id, host: "h\(id)") }
        let sender = Self.sender(clock, batch: 2)
        sender.start(queue)
        defer { sender.stop() }
        #expect(waitUntil(timeout: 600) { sender.count(.sent) == 5 })
        #expect(queue.looks.all.map(\.ids) == [[1, 2], [3, 4], [5]], "no wake-up needed")
    }

    /// The claim names the sender's clock and lease; a batch whose settle
    /// fails is not counted, and waits for its lease to end.
    @Test func aClaimIsLeasedUntilItsLeaseEnds() throws {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: true), retried: [2])
        queue.add(1, host: "a")
        queue.add(2, host: "b")
        queue.failures.withLock { $0.settles = 1 }
        let sender = Self.sender(clock, lease: 600)
        #expect(throws: StorageError.self) { try sender.sendDue(queue) }
        #expect(queue.looks.all == [Queue.Look(dueBy: clock.now, lease: 600, limit: 8, ids: [1, 2])])
        #expect(sender.count(.sent) == 0 && queue.gate.began.count == 2, "sent, but not written: not counted")
        #expect(try sender.sendDue(queue) == 0, "leased")
        clock.advance(by: 599)
        #expect(try sender.sendDue(queue) == 0, "still leased")
        clock.advance(by: 1)
        #expect(try sender.sendDue(queue) == 2)
        #expect(sender.count(.sent) == 1 && sender.count(.retry) == 1)
        #expect(queue.settles.all.last?.at == clock.now, "due times count from the settle")
        #expect(queue.due == [2: clock.now + Queue.retryDelay])
    }

    /// `perHost` lanes a host and `concurrency` in all; each outcome
    /// comes back to its own claim, whatever order the lanes ran in.
    @Test func sendsAreBoundedPerHostAndInAll() throws {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: false, opensAt: 5), retried: [3, 6, 9, 12, 15])
        for id in 1...16 { queue.add(id, host: "h\(id % 4)") }
        let sender = Self.sender(clock, batch: 16, perHost: 2, concurrency: 5)
        #expect(try sender.sendDue(queue) == 16)
        let seen = queue.gate.most
        #expect(seen.total == 5 && seen.perHost == 2, "\(seen)")
        let settled = try #require(queue.settles.all.first)
        #expect(settled.outcomes.map(\.id) == Array(1...16))
        #expect(settled.outcomes.allSatisfy { $0.outcome == ($0.id % 3 == 0 ? .retry : .sent) })
        #expect(sender.count(.sent) == 11 && sender.count(.retry) == 5)
    }

    /// The Webmention sender's shape: one lane a host (its claims in
    /// order), every host at once.
    @Test func oneLaneAHostSendsItsClaimsInOrder() throws {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: false, opensAt: 3))
        for id in 1...9 { queue.add(id, host: "h\(id % 3)") }
        let sender = Self.sender(clock, batch: 9)
        #expect(try sender.sendDue(queue) == 9)
        #expect(queue.gate.most.total == 3 && queue.gate.most.perHost == 1)
        let began = queue.gate.began
        for host in 0..<3 {
            #expect(began.filter { $0 % 3 == host } == Array(1...9).filter { $0 % 3 == host })
        }
    }

    /// A host whose sends never end holds its own slots (`perHost`) and
    /// its claims waiting behind them, nothing else: batch after batch of
    /// the other hosts' claims is sent and settled meanwhile. A stop then
    /// cancels its sends, and settles them with its claim that never began.
    @Test func aHostThatNeverAnswersDoesNotHoldUpTheOthers() {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: false))
        for id in 1...3 { queue.add(id, host: "stuck") }
        for id in 4...40 { queue.add(id, host: "h\(id % 5)") }
        for host in 0..<5 { queue.gate.open(host: "h\(host)") }
        let sender = Self.sender(clock, batch: 4, perHost: 2)
        sender.start(queue)
        #expect(waitUntil(timeout: 600) { sender.count(.sent) == 37 })
        #expect(queue.gate.began.filter { $0 <= 3 }.sorted() == [1, 2], "two at once to the stuck host, the third waits")
        #expect(queue.looks.all.count >= 10, "claimed batch after batch: \(queue.looks.all.count)")
        #expect(queue.settledIDs == Array(4...40))
        #expect(sender.underWay == 3)

        sender.stop()
        #expect(sender.count(.cancelled) == 3 && sender.count(.sent) == 37)
        #expect(queue.settledIDs == Array(1...40), "each claim settled once")
        #expect(queue.due == [1: clock.now + Queue.retryDelay, 2: clock.now + Queue.retryDelay,
                              3: clock.now + Queue.retryDelay])
        #expect(queue.gate.most.perHost == 2)
    }

    /// The bounds hold across every batch under way, not only within one:
    /// three batches claimed while the first's sends are held, and never
    /// more than `concurrency` sends, nor `perHost` to one host.
    @Test func boundsHoldAcrossBatches() {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: false))
        for id in 1...12 { queue.add(id, host: id % 3 == 0 ? "c" : (id % 2 == 0 ? "a" : "b")) }
        let sender = Self.sender(clock, batch: 4, perHost: 2, concurrency: 5)
        sender.start(queue)
        defer { sender.stop() }
        #expect(waitUntil(timeout: 600) { queue.looks.all.count == 4 && queue.gate.began.count == 5 })
        #expect(queue.looks.all.map(\.ids) == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], []])
        #expect(sender.underWay == 12)
        queue.gate.open()
        #expect(waitUntil(timeout: 600) { sender.count(.sent) == 12 })
        let seen = queue.gate.most
        #expect(seen.total == 5 && seen.perHost == 2, "\(seen)")
        #expect(queue.settledIDs == Array(1...12))
    }

    /// What finishes while a settle is being written is settled after it
    /// in one write, not one write a send.
    @Test func finishedSendsAreSettledInGroups() {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: false))
        for id in 1...9 { queue.add(id, host: "h\(id)") }
        let sender = Self.sender(clock, batch: 16)
        let release = queue.holdNextSettle()
        sender.start(queue)
        defer { sender.stop() }
        #expect(waitUntil(timeout: 600) { queue.gate.began.count == 9 })
        queue.gate.open(host: "h1")
        #expect(waitUntil(timeout: 600) { queue.settlesBegun.withLock { $0 } == 1 })
        queue.gate.open()
        #expect(waitUntil(timeout: 600) { sender.underWay == 0 })
        release.signal()
        #expect(waitUntil(timeout: 600) { sender.count(.sent) == 9 })
        #expect(queue.settles.all.map { $0.outcomes.map(\.id) } == [[1], Array(2...9)])
    }

    /// `stop` does not wait for a send: it cancels it, and the batch is
    /// settled with what the cancelled sends said.
    @Test func stopCancelsTheSendsUnderWayAndSettlesThem() {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: false))
        queue.add(1, host: "a")
        queue.add(2, host: "b")
        let sender = Self.sender(clock)
        sender.start(queue)
        #expect(waitUntil(timeout: 600) { queue.gate.began.count == 2 })
        sender.stop()
        #expect(sender.count(.cancelled) == 2)
        #expect(queue.settles.all.map { $0.outcomes.map(\.outcome) } == [[.cancelled, .cancelled]])
        #expect(queue.due == [1: clock.now + Queue.retryDelay, 2: clock.now + Queue.retryDelay])
        sender.wake()
        #expect(queue.looks.all.count == 1, "stopped: no more looks")
    }

    /// A store that fails a look stops nothing: the next wake-up looks again.
    @Test func aStoreFailureDoesNotStopTheLoop() {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: true))
        queue.add(1, host: "a")
        queue.failures.withLock { $0.claims = 1 }
        let sender = Self.sender(clock)
        sender.start(queue)
        defer { sender.stop() }
        #expect(waitUntil(timeout: 600) { queue.failures.withLock { $0.claims } == 0 })
        #expect(sender.count(.sent) == 0 && queue.looks.all.isEmpty)
        sender.wake()
        #expect(waitUntil(timeout: 600) { sender.count(.sent) == 1 })
    }

    @Test func backoffDoublesUpToItsLongest() {
        #expect((1...6).map { Backoff.delay(afterAttempt: $0, first: 60, longest: 600) } == [60, 120, 240, 480, 600, 600])
        #expect(Backoff.delay(afterAttempt: 0, first: 60, longest: 600) == 60)
        #expect(Backoff.delay(afterAttempt: 10_000, first: 60, longest: 6 * 3600) == 6 * 3600)
    }
}

extension BackgroundSenderTests {
    /// A queue in memory: rows due at a time; a claim hides a row for its
    /// lease on the test's clock; a settle removes a sent row and makes
    /// any other due again `retryDelay` after it.
    final class Queue: BackgroundJob {
        struct Claim: Sendable {
            var id: Int
            var host: String
        }

        enum Outcome: Hashable, Sendable { case sent, retry, cancelled }

        /// One claim's arguments, and what it took.
        struct Look: Sendable, Equatable {
            var dueBy: Date
            var lease: Double
            var limit: Int
            var ids: [Int]
        }

        /// One settle: when, and each claim's outcome.
        struct Settle: Sendable {
            var at: Date
            var outcomes: [(id: Int, outcome: Outcome)]
        }

        static let retryDelay: Double = 60

        let clock: TestClock
        let gate: Gate
        /// The rows whose sends answer `retry`.
        let retried: Set<Int>
        /// Looks and settles still to fail.
        let failures = Mutex(Failures())
        let looks = Collector<Look>()
        let settles = Collector<Settle>()
        /// Settles begun (the one held too).
        let settlesBegun = Mutex(0)
        private let held = Mutex<DispatchSemaphore?>(nil)
        private let rows = Mutex<[Int: (host: String, due: Date)]>([:])

        init(clock: TestClock, gate: Gate, retried: Set<Int> = []) {
            self.clock = clock
            self.gate = gate
            self.retried = retried
        }

        func add(_ id: Int, host: String) { rows.withLock { $0[id] = (host, clock.now) } }

        /// The rows left, and when each is due.
        var due: [Int: Date] { rows.withLock { $0.mapValues(\.due) } }

        struct Failures {
            var claims = 0
            var settles = 0
        }

        /// Throws, as a store that is down would, while `failures` says so.
        private func fail(settle: Bool) throws(StorageError) {
            let fails = failures.withLock { failures in
                if settle {
                    defer { failures.settles = max(0, failures.settles - 1) }
                    return failures.settles > 0
                }
                defer { failures.claims = max(0, failures.claims - 1) }
                return failures.claims > 0
            }
            if fails { throw .unreachable("the test's store is down") }
        }

        func claim(dueBy now: Date, lease: Double, limit: Int) throws(StorageError) -> [Claim] {
            try fail(settle: false)
            let claims = rows.withLock { rows in
                let due = rows.filter { $0.value.due <= now }.keys.sorted().prefix(limit)
                return due.map { id in
                    rows[id]!.due = now + lease
                    return Claim(id: id, host: rows[id]!.host)
                }
            }
            looks.append(Look(dueBy: now, lease: lease, limit: limit, ids: claims.map(\.id)))
            return claims
        }

        /// `claim`, passing `skipping`'s hosts by and taking at most
        /// `perHost` rows of any other, in id order (the stores' rule).
        func claim(dueBy now: Date, lease: Double, limit: Int, skipping: Set<String>,
                   perHost: Int) throws(StorageError) -> [Claim] {
            try fail(settle: false)
            let claims = rows.withLock { rows in
                var taken: [String: Int] = [:]
                var claims: [Claim] = []
                for id in rows.filter({ $0.value.due <= now }).keys.sorted() where claims.count < limit {
                    let host = rows[id]!.host
                    guard !skipping.contains(host), taken[host, default: 0] < perHost else { continue }
                    taken[host, default: 0] += 1
                    rows[id]!.due = now + lease
                    claims.append(Claim(id: id, host: host))
                }
                return claims
            }
            outstanding.withLock { state in
                for claim in claims {
                    state.now[claim.host, default: 0] += 1
                    state.most[claim.host] = max(state.most[claim.host, default: 0], state.now[claim.host]!)
                }
            }
            looks.append(Look(dueBy: now, lease: lease, limit: limit, ids: claims.map(\.id)))
            return claims
        }

        /// Claims of each host whose send has not returned (waiting or
        /// being sent), and the most there were at once: what the window
        /// held of the host, give or take a send returning.
        let outstanding = Mutex<(now: [String: Int], most: [String: Int])>(([:], [:]))

        func host(of claim: Claim) -> String { claim.host }

        func send(_ claim: Claim) async -> Outcome {
            defer { outstanding.withLock { $0.now[claim.host, default: 0] -= 1 } }
            await gate.pass(claim)
            if Task.isCancelled { return .cancelled }
            return retried.contains(claim.id) ? .retry : .sent
        }

        /// Holds the next settle until the returned semaphore is signalled.
        func holdNextSettle() -> DispatchSemaphore {
            let release = DispatchSemaphore(value: 0)
            held.withLock { $0 = release }
            return release
        }

        /// Every id settled, once per settle it was in.
        var settledIDs: [Int] { settles.all.flatMap { $0.outcomes.map(\.id) }.sorted() }

        func settle(_ claims: [Claim], _ outcomes: [Outcome], at now: Date) throws(StorageError) -> [Outcome] {
            settlesBegun.withLock { $0 += 1 }
            held.withLock { held in
                defer { held = nil }
                return held
            }?.wait()
            try fail(settle: true)
            rows.withLock { rows in
                for (claim, outcome) in zip(claims, outcomes) {
                    if outcome == .sent {
                        rows[claim.id] = nil
                    } else {
                        rows[claim.id]?.due = now + Self.retryDelay
                    }
                }
            }
            settles.append(Settle(at: now, outcomes: zip(claims, outcomes).map { ($0.id, $1) }))
            return outcomes
        }
    }

    /// Holds every send until opened (by the test, by `opensAt` sends
    /// under way at once, or by the send's cancellation), noting the order
    /// sends began in and the most under way in all and to one host.
    final class Gate: Sendable {
        private struct State {
            var open: Bool
            var opensAt: Int
            var waiting: [Int: (host: String, continuation: CheckedContinuation<Void, Never>)] = [:]
            var openHosts: Set<String> = []
            var passed = 0
            var released: Set<Int> = []
            var passes = 0
            var inFlight: [String: Int] = [:]
            var total = 0
            var most = (total: 0, perHost: 0)
            var began: [Int] = []
        }

        private let state: Mutex<State>

        init(open: Bool, opensAt: Int = .max) { state = Mutex(State(open: open, opensAt: opensAt)) }

        var began: [Int] { state.withLock { $0.began } }
        /// Sends through the gate.
        var passed: Int { state.withLock { $0.passed } }
        var most: (total: Int, perHost: Int) { state.withLock { $0.most } }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [:] }
                return state.waiting.values.map(\.continuation)
            }
            waiting.forEach { $0.resume() }
        }

        /// Lets `host`'s sends through, those waiting and those to come.
        func open(host: String) {
            let waiting = state.withLock { state in
                state.openHosts.insert(host)
                let found = state.waiting.filter { $0.value.host == host }
                for token in found.keys { state.waiting[token] = nil }
                return found.values.map(\.continuation)
            }
            waiting.forEach { $0.resume() }
        }

        func pass(_ claim: Queue.Claim) async {
            let token: Int = state.withLock { state in
                state.passes += 1
                state.began.append(claim.id)
                state.inFlight[claim.host, default: 0] += 1
                state.total += 1
                state.most = (max(state.most.total, state.total), max(state.most.perHost, state.inFlight[claim.host]!))
                return state.passes
            }
            if state.withLock({ $0.total >= $0.opensAt }) { open() }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let through = state.withLock { state in
                        guard !state.open, !state.openHosts.contains(claim.host), !state.released.contains(token) else {
                            return true
                        }
                        state.waiting[token] = (claim.host, continuation)
                        return false
                    }
                    if through { continuation.resume() }
                }
            } onCancel: {
                let waiting = state.withLock { state in
                    state.released.insert(token)
                    return state.waiting.removeValue(forKey: token)
                }
                waiting?.continuation.resume()
            }
            state.withLock { state in
                state.inFlight[claim.host, default: 1] -= 1
                state.total -= 1
                state.passed += 1
            }
        }
    }
}
