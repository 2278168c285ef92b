import Foundation
import Synchronization
import Testing
import BlogLimits

@Suite("The budgets every door shares")
struct LimitsBudgetTests {
    static let start = Moment(nanoseconds: 1_000_000_000)

    /// A charge may take a bucket into debt (one burst at most), and the
    /// address waits until it is paid back.
    @Test func aChargeLeavesADebtThatRefills() throws {
        let key = try #require(AddressKey(text: "192.0.2.1"))
        var buckets = TokenBuckets(rate: 1, burst: 2)
        buckets.charge(10, for: key, at: Self.start)
        #expect(buckets.tokens(for: key, at: Self.start) == -2)
        let early = buckets.take(for: key, at: Self.start.adding(seconds: 2.5))
        let repaid = buckets.take(for: key, at: Self.start.adding(seconds: 3))
        #expect(!early)
        #expect(repaid)
    }

    /// Bodies in flight are bounded per /64: a client rotating addresses
    /// inside its /64 holds no more than one address may.
    @Test func rotatingAddressesInsideOneSlash64ShareTheBodyBudget() {
        let budget = BodyBudget(maxTotal: 1 << 30, maxPerAddress: 1000)
        var taken = 0
        for index in 0 ..< 50 {
            if budget.reserve(100, for: "2001:db8:5:6:\(String(index, radix: 16))::1") { taken += 100 }
        }
        #expect(taken == 1000)
        #expect(budget.reserve(100, for: "2001:db8:5:7::1"), "the next /64 has its own budget")
        budget.release(100, for: "2001:db8:5:6:ffff::2")
        #expect(budget.reserve(100, for: "2001:db8:5:6::3"), "any address of the /64 gives back to it")
    }

    /// Text that is no address cannot escape a budget: all of it shares one.
    @Test func textThatIsNoAddressSharesOneBudget() {
        let budget = BodyBudget(maxTotal: 1 << 30, maxPerAddress: 100)
        #expect(budget.reserve(100, for: "unknown-1"))
        #expect(!budget.reserve(1, for: "unknown-2"))
    }

    @Test func aHoldReleasesItsRefusalLater() {
        #expect(RefusalHold(seconds: 1.5).release(after: Self.start) == Self.start.adding(seconds: 1.5))
        #expect(!RefusalHold.none.isHeld)
        #expect(RefusalHold(seconds: -3) == .none)
        #expect(RefusalHold.standard.duration == .seconds(1))
    }
}

@Suite("WorkerThreads: the low-priority threads of every door")
struct WorkerThreadsTests {
    /// A submitted job runs on a worker, at the nice value asked for, and
    /// `submit` returns without waiting for it.
    @Test func submittedJobsRunAtTheirNiceValue() async {
        let threads = WorkerThreads(name: "test.worker", count: 1, nice: 7)
        let nice: Int32 = await withCheckedContinuation { continuation in
            threads.submit { continuation.resume(returning: getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)) }
        }
        #expect(nice >= 7)
        #expect(threads.run { 6 * 7 } == 42)
    }

    /// Waiting jobs go by rank, the lower first, whatever their order of
    /// arrival.
    @Test func lowerRanksGoFirst() async {
        let threads = WorkerThreads(name: "test.rank", count: 1, ranks: 3)
        let order = Mutex<[Int]>([])
        let gate = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            // Holds the one thread until every job below is queued.
            threads.submit { started.resume(); gate.wait() }
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let left = Mutex(6)
            for rank in [2, 1, 0, 2, 1, 0] {
                threads.submit(rank: rank, owner: "o\(rank)") {
                    order.withLock { $0.append(rank) }
                    if left.withLock({ $0 -= 1; return $0 }) == 0 { done.resume() }
                }
            }
            gate.signal()
        }
        #expect(order.withLock { $0 } == [0, 0, 1, 1, 2, 2])
    }
}
