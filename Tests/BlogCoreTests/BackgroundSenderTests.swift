@testable import BlogCore
import BlogModel
import BlogTestSupport
import Foundation
import Logging
import Synchronization
import Testing

/// The loop the Webmention sender and the ActivityPub delivery share, over
/// a queue in memory on the test's clock and sends held at a gate: a
/// wake-up during a batch is one more look after it, a full batch is
/// followed at once, a claim stays leased until settled or its lease
/// ends, the sends are bounded per host and in all, and a stop cancels
/// the sends under way and settles them.
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

    @Test func aWakeUpDuringABatchIsOneMoreLookAfterIt() {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: false))
        queue.add(1, host: "a")
        let sender = Self.sender(clock)
        sender.start(queue)
        #expect(waitUntil(timeout: 60) { queue.gate.began == [1] })
        queue.add(2, host: "a")
        for _ in 0..<3 { sender.wake() }
        queue.gate.open()
        #expect(waitUntil(timeout: 60) { sender.count(.sent) == 2 })
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
        #expect(waitUntil(timeout: 60) { sender.count(.sent) == 5 })
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

    @Test func lanesDealAHostsClaimsRound() {
        let lanes = BackgroundSender<Queue>.lanes(hosts: ["a", "b", "a", "a", "c"], perHost: 2)
        #expect(lanes.sorted { $0[0] < $1[0] } == [[0, 3], [1], [2], [4]])
        #expect(BackgroundSender<Queue>.lanes(hosts: [], perHost: 2).isEmpty)
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
        #expect(waitUntil(timeout: 60) { queue.gate.began.count == 2 })
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
        #expect(waitUntil(timeout: 60) { queue.failures.withLock { $0.claims } == 0 })
        #expect(sender.count(.sent) == 0 && queue.looks.all.isEmpty)
        sender.wake()
        #expect(waitUntil(timeout: 60) { sender.count(.sent) == 1 })
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

        func host(of claim: Claim) -> String { claim.host }

        func send(_ claim: Claim) async -> Outcome {
            await gate.pass(claim)
            if Task.isCancelled { return .cancelled }
            return retried.contains(claim.id) ? .retry : .sent
        }

        func settle(_ claims: [Claim], _ outcomes: [Outcome], at now: Date) throws(StorageError) -> [Outcome] {
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
            var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
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
        var most: (total: Int, perHost: Int) { state.withLock { $0.most } }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [:] }
                return Array(state.waiting.values)
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
                        guard !state.open, !state.released.contains(token) else { return true }
                        state.waiting[token] = continuation
                        return false
                    }
                    if through { continuation.resume() }
                }
            } onCancel: {
                let waiting = state.withLock { state in
                    state.released.insert(token)
                    return state.waiting.removeValue(forKey: token)
                }
                waiting?.resume()
            }
            state.withLock { state in
                state.inFlight[claim.host, default: 1] -= 1
                state.total -= 1
            }
        }
    }
}
