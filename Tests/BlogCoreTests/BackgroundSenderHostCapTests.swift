@testable import BlogCore
import BlogTestSupport
import Foundation
import Logging
import Testing

/// The window's bound on one host (`heldPerHost`), over the queue in
/// memory of `BackgroundSenderTests` (its claims pass crowded hosts by and
/// take at most the bound of any other, as the stores' do): a host with a
/// hundred due rows ahead of the others fills a few places of the window,
/// the others' rows are claimed and sent past it, and a claim that the
/// bound cut short is followed at once, whatever the sends did meanwhile.
@Suite("BackgroundSender host cap")
struct BackgroundSenderHostCapTests {
    typealias Queue = BackgroundSenderTests.Queue
    typealias Gate = BackgroundSenderTests.Gate

    static func sender(_ clock: TestClock, batch: Int, perHost: Int, heldPerHost: Int) -> BackgroundSender<Queue> {
        BackgroundSender(thread: "test-sender", queue: "test queue",
                         settings: .init(batch: batch, lease: 600, perHost: perHost, heldPerHost: heldPerHost,
                                         pollInterval: nil, gather: 0),
                         now: clock.closure, logger: BackgroundSenderTests.quiet)
    }

    /// 100 rows of a host that does not answer (until the test lets it),
    /// ahead of 50 rows of five others: the window holds at most 4 of it
    /// (2 being sent, 2 waiting) while every other row is claimed and sent;
    /// let through, its rows go on, never more than the bound's twice less
    /// one held at once (a claim takes up to the bound of a host the window
    /// holds fewer than the bound of).
    @Test func aHostWithHundredsOfRowsHoldsAFewPlaces() {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: false))
        for id in 1...100 { queue.add(id, host: "crowd") }
        for id in 101...150 { queue.add(id, host: "h\(id % 5)") }
        for host in 0..<5 { queue.gate.open(host: "h\(host)") }
        let sender = Self.sender(clock, batch: 8, perHost: 2, heldPerHost: 4)
        sender.start(queue)
        defer { sender.stop() }

        #expect(waitUntil(timeout: 600) { sender.count(.sent) == 50 }, "the others' rows went past the crowd")
        #expect(queue.settledIDs == Array(101...150))
        #expect(queue.outstanding.withLock { $0.most["crowd"] } == 4, "4 of the crowd held, no more")
        #expect(queue.gate.began.filter { $0 <= 100 }.sorted() == [1, 2], "two at once to the crowd, two waiting")
        #expect(sender.underWay == 4)
        #expect(queue.looks.all.allSatisfy { $0.ids.filter { $0 <= 100 }.count <= 4 })

        queue.gate.open(host: "crowd")
        #expect(waitUntil(timeout: 600) { sender.count(.sent) == 150 }, "let through, the crowd's rows go on")
        #expect(queue.settledIDs == Array(1...150), "each row settled once")
        #expect(queue.outstanding.withLock { $0.most["crowd"]! } <= 7)
        #expect(queue.gate.most.perHost == 2)
    }

    /// A claim the bound cut short (6 rows of 8: 4 of the crowd, the 2
    /// others) is followed at once, with no wake-up and no poll, even
    /// though the crowd's sends answer at once and may all have finished
    /// before the loop looks again: the loop knows from the claim itself
    /// that it filled a host.
    @Test func aClaimCutShortByTheBoundIsFollowedAtOnce() {
        let clock = TestClock()
        let queue = Queue(clock: clock, gate: Gate(open: true))
        for id in 1...10 { queue.add(id, host: "crowd") }
        queue.add(11, host: "a")
        queue.add(12, host: "b")
        let sender = Self.sender(clock, batch: 8, perHost: 2, heldPerHost: 4)
        sender.start(queue)
        defer { sender.stop() }
        #expect(waitUntil(timeout: 600) { sender.count(.sent) == 12 }, "no poll, no wake-up: the loop looked again itself")
        #expect(queue.looks.all.first?.ids == [1, 2, 3, 4, 11, 12])
        #expect(queue.settledIDs == Array(1...12))
    }

    /// The rule itself: a claim fills a host when it brings the host to
    /// the bound with what the window held of it before the claim; what
    /// the window holds after (sends finish meanwhile) has no say.
    @Test func aClaimFillsAHostFromWhatTheWindowHeldBefore() {
        let fills = BackgroundSender<Queue>.fills(_:heldBefore:bound:)
        #expect(fills(["a", "a", "a", "a", "b"], [:], 4), "cut short by the bound")
        #expect(fills(["a", "b"], ["a": 3], 4), "brought to the bound with what was held")
        #expect(!fills(["a", "a", "a", "b"], [:], 4))
        #expect(!fills(["a", "b"], ["a": 2, "c": 9], 4), "a crowded host not claimed is not filled by this claim")
        #expect(!fills([], ["a": 3], 4))
    }
}
