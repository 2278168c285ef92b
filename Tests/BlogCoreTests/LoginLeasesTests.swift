import Foundation
import Testing
@testable import BlogCore

@Suite("LoginLeases")
struct LoginLeasesTests {
    @Test func grantThenHeld() {
        let leases = LoginLeases(duration: 3600)
        #expect(!leases.isHeld(by: user("alice"), from: "192.0.2.1"))
        leases.grant(user("alice"), from: "192.0.2.1")
        #expect(leases.isHeld(by: user("alice"), from: "192.0.2.1"))
        #expect(leases.count == 1)
    }

    @Test func otherAddressNotHeld() {
        let leases = LoginLeases(duration: 3600)
        leases.grant(user("alice"), from: "192.0.2.1")
        #expect(!leases.isHeld(by: user("alice"), from: "192.0.2.2"))
        #expect(!leases.isHeld(by: user("alice"), from: "::1"))
        #expect(!leases.isHeld(by: user("alice"), from: ""))
    }

    @Test func otherUserNotHeld() {
        let leases = LoginLeases(duration: 3600)
        leases.grant(user("alice"), from: "192.0.2.1")
        #expect(!leases.isHeld(by: user("bob"), from: "192.0.2.1"))
        #expect(!leases.isHeld(by: user("alice2"), from: "192.0.2.1"))
    }

    @Test func userIsCaseInsensitive() {
        let leases = LoginLeases(duration: 3600)
        leases.grant(user("Alice"), from: "192.0.2.1")
        #expect(leases.isHeld(by: user("alice"), from: "192.0.2.1"))
        #expect(leases.isHeld(by: user("ALICE"), from: "192.0.2.1"))
        leases.grant(user("aLiCe"), from: "192.0.2.1")
        #expect(leases.count == 1, "the same user in another case renews, not adds")
    }

    @Test func expiresAfterDuration() {
        let clock = TestClock()
        let leases = LoginLeases(duration: 60, now: clock.closure)
        leases.grant(user("alice"), from: "10.0.0.1")
        clock.advance(by: 59.999)
        #expect(leases.isHeld(by: user("alice"), from: "10.0.0.1"))
        clock.advance(by: 0.001)
        #expect(!leases.isHeld(by: user("alice"), from: "10.0.0.1"), "expired exactly at grant + duration")
        clock.advance(by: 1000)
        #expect(!leases.isHeld(by: user("alice"), from: "10.0.0.1"))
    }

    @Test func grantRenews() {
        let clock = TestClock()
        let leases = LoginLeases(duration: 10, now: clock.closure)
        leases.grant(user("alice"), from: "10.0.0.1")
        clock.advance(by: 8)
        leases.grant(user("alice"), from: "10.0.0.1")
        clock.advance(by: 8)
        #expect(leases.isHeld(by: user("alice"), from: "10.0.0.1"))
        clock.advance(by: 2)
        #expect(!leases.isHeld(by: user("alice"), from: "10.0.0.1"))
        // An expired lease can be granted again.
        leases.grant(user("alice"), from: "10.0.0.1")
        #expect(leases.isHeld(by: user("alice"), from: "10.0.0.1"))
    }

    @Test func zeroDurationIsNeverHeld() {
        let clock = TestClock()
        let leases = LoginLeases(duration: 0, now: clock.closure)
        leases.grant(user("alice"), from: "10.0.0.1")
        #expect(!leases.isHeld(by: user("alice"), from: "10.0.0.1"))
    }

    @Test func durationIsKept() {
        #expect(LoginLeases(duration: 42).duration == 42)
    }

    @Test func sweepRemovesExpiredPastThreshold() {
        let clock = TestClock()
        let leases = LoginLeases(duration: 10, sweepThreshold: 4, now: clock.closure)
        for index in 0 ..< 3 { leases.grant(user("old\(index)"), from: "10.0.0.1") }
        clock.advance(by: 5)
        leases.grant(user("fresh"), from: "10.0.0.1")
        #expect(leases.count == 4)
        clock.advance(by: 6) // the three old ones expired, "fresh" has 4 s left
        #expect(leases.count == 4, "expired leases stay until a grant sweeps them")
        leases.grant(user("new"), from: "10.0.0.2")
        #expect(leases.count == 2)
        #expect(leases.isHeld(by: user("fresh"), from: "10.0.0.1"))
        #expect(leases.isHeld(by: user("new"), from: "10.0.0.2"))
        #expect(!leases.isHeld(by: user("old0"), from: "10.0.0.1"))
    }

    @Test func noSweepBelowThreshold() {
        let clock = TestClock()
        let leases = LoginLeases(duration: 10, sweepThreshold: 100, now: clock.closure)
        for index in 0 ..< 10 { leases.grant(user("u\(index)"), from: "10.0.0.1") }
        clock.advance(by: 20)
        leases.grant(user("late"), from: "10.0.0.1")
        #expect(leases.count == 11)
    }

    @Test func manyAddressesPerUser() {
        let leases = LoginLeases(duration: 3600)
        leases.grant(user("alice"), from: "10.0.0.1")
        leases.grant(user("alice"), from: "10.0.0.2")
        #expect(leases.isHeld(by: user("alice"), from: "10.0.0.1"))
        #expect(leases.isHeld(by: user("alice"), from: "10.0.0.2"))
        #expect(leases.count == 2)
    }

    @Test func concurrentGrantsAreAllKept() {
        let leases = LoginLeases(duration: 3600)
        DispatchQueue.concurrentPerform(iterations: 500) { index in
            leases.grant(user("u\(index)"), from: "10.0.\(index % 7).1")
            _ = leases.isHeld(by: user("u\(index)"), from: "10.0.0.1")
        }
        #expect(leases.count == 500)
        #expect((0 ..< 500).allSatisfy { leases.isHeld(by: user("u\($0)"), from: "10.0.\($0 % 7).1") })
    }
}
