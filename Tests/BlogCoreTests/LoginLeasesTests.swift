import Foundation
import Testing
import BlogTestSupport
@testable import BlogCore
import BlogSQLite
@testable import BlogAuth

@Suite("LoginLeases")
struct LoginLeasesTests {
    @Test func grantThenHeld() throws {
        let leases = LoginLeases(duration: 3600)
        #expect(try !leases.isHeld(by: user("alice"), from: "192.0.2.1"))
        try leases.grant(user("alice"), from: "192.0.2.1")
        #expect(try leases.isHeld(by: user("alice"), from: "192.0.2.1"))
        #expect(leases.count == 1)
    }

    @Test func otherAddressNotHeld() throws {
        let leases = LoginLeases(duration: 3600)
        try leases.grant(user("alice"), from: "192.0.2.1")
        #expect(try !leases.isHeld(by: user("alice"), from: "192.0.2.2"))
        #expect(try !leases.isHeld(by: user("alice"), from: "::1"))
        #expect(try !leases.isHeld(by: user("alice"), from: ""))
    }

    @Test func otherUserNotHeld() throws {
        let leases = LoginLeases(duration: 3600)
        try leases.grant(user("alice"), from: "192.0.2.1")
        #expect(try !leases.isHeld(by: user("bob"), from: "192.0.2.1"))
        #expect(try !leases.isHeld(by: user("alice2"), from: "192.0.2.1"))
    }

    @Test func userIsCaseInsensitive() throws {
        let leases = LoginLeases(duration: 3600)
        try leases.grant(user("Alice"), from: "192.0.2.1")
        #expect(try leases.isHeld(by: user("alice"), from: "192.0.2.1"))
        #expect(try leases.isHeld(by: user("ALICE"), from: "192.0.2.1"))
        try leases.grant(user("aLiCe"), from: "192.0.2.1")
        #expect(leases.count == 1, "the same user in another case renews, not adds")
    }

    @Test func expiresAfterDuration() throws {
        let clock = TestClock()
        let leases = LoginLeases(duration: 60, now: clock.closure)
        try leases.grant(user("alice"), from: "10.0.0.1")
        clock.advance(by: 59.999)
        #expect(try leases.isHeld(by: user("alice"), from: "10.0.0.1"))
        clock.advance(by: 0.001)
        #expect(try !leases.isHeld(by: user("alice"), from: "10.0.0.1"), "expired exactly at grant + duration")
        clock.advance(by: 1000)
        #expect(try !leases.isHeld(by: user("alice"), from: "10.0.0.1"))
    }

    @Test func grantRenews() throws {
        let clock = TestClock()
        let leases = LoginLeases(duration: 10, now: clock.closure)
        try leases.grant(user("alice"), from: "10.0.0.1")
        clock.advance(by: 8)
        try leases.grant(user("alice"), from: "10.0.0.1")
        clock.advance(by: 8)
        #expect(try leases.isHeld(by: user("alice"), from: "10.0.0.1"))
        clock.advance(by: 2)
        #expect(try !leases.isHeld(by: user("alice"), from: "10.0.0.1"))
        // An expired lease can be granted again.
        try leases.grant(user("alice"), from: "10.0.0.1")
        #expect(try leases.isHeld(by: user("alice"), from: "10.0.0.1"))
    }

    @Test func zeroDurationIsNeverHeld() throws {
        let clock = TestClock()
        let leases = LoginLeases(duration: 0, now: clock.closure)
        try leases.grant(user("alice"), from: "10.0.0.1")
        #expect(try !leases.isHeld(by: user("alice"), from: "10.0.0.1"))
    }

    @Test func durationIsKept() throws {
        #expect(LoginLeases(duration: 42).duration == 42)
    }

    @Test func aGrantForgetsTheExpiredLeases() throws {
        let clock = TestClock()
        let leases = LoginLeases(duration: 10, now: clock.closure)
        for index in 0 ..< 3 { try leases.grant(user("old\(index)"), from: "10.0.0.1") }
        clock.advance(by: 5)
        try leases.grant(user("fresh"), from: "10.0.0.1")
        #expect(leases.count == 4)
        clock.advance(by: 6) // the three old ones expired, "fresh" has 4 s left
        #expect(leases.count == 4, "expired leases stay until a grant passes them")
        try leases.grant(user("new"), from: "10.0.0.2")
        #expect(leases.count == 2)
        #expect(try leases.isHeld(by: user("fresh"), from: "10.0.0.1"))
        #expect(try leases.isHeld(by: user("new"), from: "10.0.0.2"))
        #expect(try !leases.isHeld(by: user("old0"), from: "10.0.0.1"))
    }

    @Test func aRenewedLeaseIsNotForgottenWithItsFirstGrant() throws {
        let clock = TestClock()
        let leases = LoginLeases(duration: 10, now: clock.closure)
        try leases.grant(user("alice"), from: "10.0.0.1")
        clock.advance(by: 8)
        try leases.grant(user("alice"), from: "10.0.0.1")
        clock.advance(by: 5) // the first grant's time is over, the renewal's is not
        try leases.grant(user("bob"), from: "10.0.0.2")
        #expect(try leases.isHeld(by: user("alice"), from: "10.0.0.1"))
        #expect(leases.count == 2)
    }

    @Test func pastTheCapacityTheOldestAreForgotten() throws {
        let clock = TestClock()
        let leases = LoginLeases(duration: 3600, capacity: 100, now: clock.closure)
        for index in 0 ..< 1000 {
            try leases.grant(user("u\(index)"), from: "10.0.0.1")
            #expect(leases.count <= 101)
        }
        #expect(try leases.isHeld(by: user("u999"), from: "10.0.0.1"))
        #expect(try !leases.isHeld(by: user("u0"), from: "10.0.0.1"), "no database to ask")
    }

    @Test func manyAddressesPerUser() throws {
        let leases = LoginLeases(duration: 3600)
        try leases.grant(user("alice"), from: "10.0.0.1")
        try leases.grant(user("alice"), from: "10.0.0.2")
        #expect(try leases.isHeld(by: user("alice"), from: "10.0.0.1"))
        #expect(try leases.isHeld(by: user("alice"), from: "10.0.0.2"))
        #expect(leases.count == 2)
    }

    @Test func concurrentGrantsAreAllKept() throws {
        let leases = LoginLeases(duration: 3600)
        DispatchQueue.concurrentPerform(iterations: 500) { index in
            try? leases.grant(user("u\(index)"), from: "10.0.\(index % 7).1")
            _ = try? leases.isHeld(by: user("u\(index)"), from: "10.0.0.1")
        }
        #expect(leases.count == 500)
        #expect(try (0 ..< 500).allSatisfy { try leases.isHeld(by: user("u\($0)"), from: "10.0.\($0 % 7).1") })
    }

    // With a database: what instances share and a restart keeps.

    @Test func aLeaseSurvivesARestart() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("blog.sqlite").path
            let clock = TestClock()
            let before = try SQLiteStore(path: path)
            try LoginLeases(duration: 60, storage: before, now: clock.closure).grant(user("alice"), from: "10.0.0.1")
            try before.close()

            let after = try SQLiteStore(path: path)
            defer { try? after.close() }
            let leases = LoginLeases(duration: 60, storage: after, now: clock.closure)
            #expect(try leases.isHeld(by: user("ALICE"), from: "10.0.0.1"))
            #expect(try !leases.isHeld(by: user("alice"), from: "10.0.0.2"))
            clock.advance(by: 60)
            #expect(try !leases.isHeld(by: user("alice"), from: "10.0.0.1"), "expiry is kept too")
        }
    }

    @Test func aLeaseGrantedByOneInstanceIsHeldInAnother() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let one = LoginLeases(duration: 60, storage: store)
            let other = LoginLeases(duration: 60, storage: store)
            #expect(try !other.isHeld(by: user("alice"), from: "10.0.0.1"))
            try one.grant(user("alice"), from: "10.0.0.1")
            #expect(try other.isHeld(by: user("alice"), from: "10.0.0.1"))
            #expect(other.count == 1, "the lease read from the database is remembered")
        }
    }

    @Test func pruningDeletesExpiredLeasesAndStaleFailuresFromTheDatabase() throws {
        try withService(loginLease: 10, loginThrottle: .init(allowedFailures: 2, window: 100, lockout: 50)) { (fx: ServiceFixture) throws in
            var session = Session(peerAddress: "10.0.0.1")
            #expect(fx.send("register:alice:pw", &session) == .registered)
            // Random names: a failure row each, and one name locked out.
            for index in 0 ..< 5 {
                var guesser = Session(peerAddress: "10.0.9.\(index)")
                #expect(fx.send("login:nobody\(index):x", &guesser) == .loginRefused)
            }
            var locked = Session(peerAddress: "10.0.8.1")
            for _ in 0 ..< 2 { #expect(fx.send("login:alice:wrong", &locked) == .loginRefused) }
            #expect(try fx.service.pruneLoginState() == 0, "nothing is stale yet")

            fx.clock.advance(by: 60) // the lease and the lockout are over; the windows are not
            #expect(try fx.service.pruneLoginState() == 1)
            #expect(try fx.store.leaseExpiry(userKey: "alice", address: "10.0.0.1") == nil)
            #expect(try fx.store.loginFailures(userKey: "alice", address: "10.0.8.1") == nil)
            #expect(try fx.store.loginFailures(userKey: "nobody0", address: "10.0.9.0") != nil)

            fx.clock.advance(by: 50) // every window is past
            #expect(try fx.service.pruneLoginState() == 5)
            #expect(try fx.store.loginFailures(userKey: "nobody4", address: "10.0.9.4") == nil)
        }
    }
}
