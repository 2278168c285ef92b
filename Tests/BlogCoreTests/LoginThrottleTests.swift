import Foundation
import Testing
import BlogTestSupport
@testable import BlogAuth
@testable import BlogCore

@Suite("LoginThrottle")
struct LoginThrottleTests {
    private let address = "198.51.100.7"

    private func throttle(_ policy: LoginThrottle.Policy = .init(allowedFailures: 3, window: 60, lockout: 120),
                          capacity: Int = 100_000, clock: TestClock) -> LoginThrottle {
        LoginThrottle(policy: policy, capacity: capacity, now: clock.closure)
    }

    private func fail(_ throttle: LoginThrottle, _ name: String = "alice", times: Int, from address: String? = nil) {
        for _ in 0 ..< times { throttle.recordFailure(user(name), from: address ?? self.address) }
    }

    @Test func defaultPolicy() {
        let policy = LoginThrottle.Policy()
        #expect(policy.allowedFailures == 5)
        #expect(policy.window == 300)
        #expect(policy.lockout == 300)
    }

    @Test func locksAtTheLimit() {
        let clock = TestClock()
        let throttle = throttle(clock: clock)
        #expect(!throttle.isLocked(user("alice"), from: address))
        fail(throttle, times: 2)
        #expect(!throttle.isLocked(user("alice"), from: address))
        fail(throttle, times: 1)
        #expect(throttle.isLocked(user("alice"), from: address))
    }

    @Test func lockLastsTheLockout() {
        let clock = TestClock()
        let throttle = throttle(clock: clock)
        fail(throttle, times: 3)
        clock.advance(by: 119)
        #expect(throttle.isLocked(user("alice"), from: address))
        clock.advance(by: 1)
        #expect(!throttle.isLocked(user("alice"), from: address))
        // After a lockout the count starts again from zero.
        fail(throttle, times: 2)
        #expect(!throttle.isLocked(user("alice"), from: address))
        fail(throttle, times: 1)
        #expect(throttle.isLocked(user("alice"), from: address))
    }

    @Test func failuresOutsideTheWindowAreForgotten() {
        let clock = TestClock()
        let throttle = throttle(clock: clock)
        fail(throttle, times: 2)
        clock.advance(by: 61)
        fail(throttle, times: 2)
        #expect(!throttle.isLocked(user("alice"), from: address), "2 + 2 failures, but not within 60 s")
        fail(throttle, times: 1)
        #expect(throttle.isLocked(user("alice"), from: address))
    }

    @Test func keyedByUserAndAddress() {
        let clock = TestClock()
        let throttle = throttle(clock: clock)
        fail(throttle, times: 3)
        #expect(throttle.isLocked(user("alice"), from: address))
        #expect(throttle.isLocked(user("ALICE"), from: address), "names compare regardless of case")
        #expect(!throttle.isLocked(user("alice"), from: "198.51.100.8"), "a guesser elsewhere does not lock the user out")
        #expect(!throttle.isLocked(user("bob"), from: address))
        // Failures of different users, or from different addresses, do not add up.
        fail(throttle, "bob", times: 2)
        fail(throttle, "bob", times: 2, from: "198.51.100.9")
        #expect(!throttle.isLocked(user("bob"), from: address))
        #expect(!throttle.isLocked(user("bob"), from: "198.51.100.9"))
    }

    @Test func successForgetsFailures() {
        let clock = TestClock()
        let throttle = throttle(clock: clock)
        fail(throttle, times: 2)
        throttle.recordSuccess(user("Alice"), from: address)
        #expect(throttle.count == 0)
        fail(throttle, times: 2)
        #expect(!throttle.isLocked(user("alice"), from: address))
    }

    @Test func offNeverLocks() {
        let clock = TestClock()
        let throttle = throttle(.off, clock: clock)
        fail(throttle, times: 1000)
        #expect(!throttle.isLocked(user("alice"), from: address))
        #expect(throttle.count == 0)
    }

    @Test func oneAllowedFailure() {
        let clock = TestClock()
        let throttle = throttle(.init(allowedFailures: 1, window: 60, lockout: 10), clock: clock)
        fail(throttle, times: 1)
        #expect(throttle.isLocked(user("alice"), from: address))
    }

    @Test func zeroLockoutNeverLocks() {
        let clock = TestClock()
        let throttle = throttle(.init(allowedFailures: 2, window: 60, lockout: 0), clock: clock)
        fail(throttle, times: 10)
        #expect(!throttle.isLocked(user("alice"), from: address))
    }

    @Test func staleEntriesAreSweptAtCapacity() {
        let clock = TestClock()
        let throttle = throttle(capacity: 4, clock: clock)
        for index in 0 ..< 4 { throttle.recordFailure(user("u\(index)"), from: address) }
        #expect(throttle.count == 4)
        clock.advance(by: 121) // past both window and lockout
        throttle.recordFailure(user("fresh"), from: address)
        #expect(throttle.count == 1)
    }

    @Test func lockedEntriesSurviveTheSweep() {
        let clock = TestClock()
        let throttle = throttle(.init(allowedFailures: 2, window: 10, lockout: 100), capacity: 4, clock: clock)
        for index in 0 ..< 3 { throttle.recordFailure(user("u\(index)"), from: address) }
        clock.advance(by: 90)
        fail(throttle, "locked", times: 2) // locked until t0 + 190
        clock.advance(by: 20) // the single failures are 110 s old: stale
        throttle.recordFailure(user("fresh"), from: address)
        #expect(throttle.count == 2)
        #expect(throttle.isLocked(user("locked"), from: address))
    }

    @Test func oldestAreDroppedWhenNothingIsStale() {
        let clock = TestClock()
        let throttle = throttle(capacity: 4, clock: clock)
        fail(throttle, "u1", times: 1)
        clock.advance(by: 1)
        fail(throttle, "u2", times: 1)
        clock.advance(by: 1)
        fail(throttle, "locked", times: 3)
        clock.advance(by: 1)
        fail(throttle, "u3", times: 1)
        #expect(throttle.count == 4)
        throttle.recordFailure(user("fresh"), from: address)
        // Nothing was stale: the two oldest (u1, u2) made room.
        #expect(throttle.count == 3)
        #expect(throttle.isLocked(user("locked"), from: address))
    }

    @Test func memoryStaysBounded() {
        let clock = TestClock()
        let throttle = throttle(capacity: 10, clock: clock)
        for index in 0 ..< 1000 {
            throttle.recordFailure(user("u\(index)"), from: "10.0.\(index % 256).\(index / 256)")
            #expect(throttle.count <= 10)
        }
    }

    @Test func concurrentFailuresAreAllCounted() {
        let clock = TestClock()
        let throttle = throttle(.init(allowedFailures: 200, window: 60, lockout: 60), clock: clock)
        DispatchQueue.concurrentPerform(iterations: 199) { _ in
            throttle.recordFailure(user("alice"), from: "10.0.0.1")
        }
        #expect(!throttle.isLocked(user("alice"), from: "10.0.0.1"))
        throttle.recordFailure(user("alice"), from: "10.0.0.1")
        #expect(throttle.isLocked(user("alice"), from: "10.0.0.1"))
    }
}
