import BlogCore
import BlogTestSupport
import Foundation
import Testing
import BlogAuth
import BlogModel
@testable import BlogPostgres

/// Leases and failed logins in PostgreSQL, shared by every instance.
@Suite("PostgresStore logins", .enabled(if: PostgresCluster.enabled))
struct PostgresLoginTests {
    let policy = LoginThrottle.Policy(allowedFailures: 3, window: 300, lockout: 600)

    @Test func leases() throws {
        try withStore { (store: PostgresStore, url: String) throws in
            #expect(try store.leaseExpiry(userKey: "alice", address: "10.0.0.1") == nil)
            try store.grantLease(userKey: "alice", address: "10.0.0.1", until: t0.addingTimeInterval(3600))
            try store.grantLease(userKey: "alice", address: "::1", until: t0.addingTimeInterval(60))
            try store.grantLease(userKey: "bob", address: "10.0.0.1", until: t0.addingTimeInterval(10))
            #expect(try store.leaseExpiry(userKey: "alice", address: "10.0.0.1") == t0.addingTimeInterval(3600))
            // Renewed.
            try store.grantLease(userKey: "alice", address: "10.0.0.1", until: t0.addingTimeInterval(7200.5))
            #expect(try store.leaseExpiry(userKey: "alice", address: "10.0.0.1") == t0.addingTimeInterval(7200.5))
            // Shared: another instance sees it.
            let other = try openStore(url)
            defer { try? other.close() }
            #expect(try other.leaseExpiry(userKey: "alice", address: "::1") == t0.addingTimeInterval(60))
            try store.deleteLeases(expiredBefore: t0.addingTimeInterval(61))
            #expect(try store.leaseExpiry(userKey: "alice", address: "::1") == nil)
            #expect(try store.leaseExpiry(userKey: "bob", address: "10.0.0.1") == nil)
            #expect(try store.leaseExpiry(userKey: "alice", address: "10.0.0.1") == t0.addingTimeInterval(7200.5))
        }
    }

    @Test func failuresCountUpToALockout() throws {
        try withStore { (store: PostgresStore, _: String) throws in
            #expect(try store.loginFailures(userKey: "alice", address: "a") == nil)
            let first = try store.recordLoginFailure(userKey: "alice", address: "a", at: t0, policy: policy)
            #expect(first == LoginFailures(failures: 1, firstFailure: t0, lockedUntil: nil))
            let second = try store.recordLoginFailure(userKey: "alice", address: "a", at: t0.addingTimeInterval(10), policy: policy)
            #expect(second == LoginFailures(failures: 2, firstFailure: t0, lockedUntil: nil))
            // Another address and another user count apart.
            #expect(try store.recordLoginFailure(userKey: "alice", address: "b", at: t0, policy: policy).failures == 1)
            #expect(try store.recordLoginFailure(userKey: "bob", address: "a", at: t0, policy: policy).failures == 1)
            let third = try store.recordLoginFailure(userKey: "alice", address: "a", at: t0.addingTimeInterval(20), policy: policy)
            #expect(third == LoginFailures(failures: 3, firstFailure: t0, lockedUntil: t0.addingTimeInterval(620)))
            #expect(try store.loginFailures(userKey: "alice", address: "a") == third)
        }
    }

    @Test func staleFailuresAreDeleted() throws {
        try withStore { (store: PostgresStore, _: String) throws in
            // alice at a: locked out until t0 + 620; bob at a: one failure at t0.
            for offset in [0.0, 10, 20] {
                _ = try store.recordLoginFailure(userKey: "alice", address: "a", at: t0.addingTimeInterval(offset), policy: policy)
            }
            _ = try store.recordLoginFailure(userKey: "bob", address: "a", at: t0, policy: policy)
            #expect(try store.deleteStaleLoginFailures(at: t0.addingTimeInterval(200), policy: policy) == 0)
            #expect(try store.deleteStaleLoginFailures(at: t0.addingTimeInterval(301), policy: policy) == 1, "bob's window is past")
            #expect(try store.loginFailures(userKey: "bob", address: "a") == nil)
            #expect(try store.loginFailures(userKey: "alice", address: "a") != nil, "still locked out")
            #expect(try store.deleteStaleLoginFailures(at: t0.addingTimeInterval(620), policy: policy) == 1)
            #expect(try store.loginFailures(userKey: "alice", address: "a") == nil)
        }
    }

    @Test func aStaleWindowStartsAgain() throws {
        try withStore { (store: PostgresStore, _: String) throws in
            _ = try store.recordLoginFailure(userKey: "alice", address: "a", at: t0, policy: policy)
            _ = try store.recordLoginFailure(userKey: "alice", address: "a", at: t0.addingTimeInterval(1), policy: policy)
            // Exactly at the window's end it still counts...
            let atEdge = try store.recordLoginFailure(userKey: "alice", address: "a", at: t0.addingTimeInterval(300), policy: policy)
            #expect(atEdge.failures == 3)
            try store.clearLoginFailures(userKey: "alice", address: "a")
            _ = try store.recordLoginFailure(userKey: "alice", address: "a", at: t0, policy: policy)
            // ...past it, it starts again.
            let later = t0.addingTimeInterval(300.5)
            let restarted = try store.recordLoginFailure(userKey: "alice", address: "a", at: later, policy: policy)
            #expect(restarted == LoginFailures(failures: 1, firstFailure: later, lockedUntil: nil))
        }
    }

    @Test func anEndedLockoutStartsAgain() throws {
        try withStore { (store: PostgresStore, _: String) throws in
            for second in 0 ..< 3 {
                _ = try store.recordLoginFailure(userKey: "alice", address: "a", at: t0.addingTimeInterval(Double(second)), policy: policy)
            }
            let locked = try #require(try store.loginFailures(userKey: "alice", address: "a"))
            #expect(locked.lockedUntil == t0.addingTimeInterval(602))
            // A failure during the lockout counts and extends it.
            let during = try store.recordLoginFailure(userKey: "alice", address: "a", at: t0.addingTimeInterval(100), policy: policy)
            #expect(during == LoginFailures(failures: 4, firstFailure: t0, lockedUntil: t0.addingTimeInterval(700)))
            // At its end the record is stale: one failure, unlocked.
            let after = t0.addingTimeInterval(700)
            let restarted = try store.recordLoginFailure(userKey: "alice", address: "a", at: after, policy: policy)
            #expect(restarted == LoginFailures(failures: 1, firstFailure: after, lockedUntil: nil))
        }
    }

    @Test func clearForgets() throws {
        try withStore { (store: PostgresStore, _: String) throws in
            _ = try store.recordLoginFailure(userKey: "alice", address: "a", at: t0, policy: policy)
            _ = try store.recordLoginFailure(userKey: "alice", address: "b", at: t0, policy: policy)
            try store.clearLoginFailures(userKey: "alice", address: "a")
            #expect(try store.loginFailures(userKey: "alice", address: "a") == nil)
            #expect(try store.loginFailures(userKey: "alice", address: "b")?.failures == 1)
            try store.clearLoginFailures(userKey: "nobody", address: "a")
        }
    }

    /// Failures recorded at once, from two instances, are all counted.
    @Test func concurrentFailuresAreAllCounted() throws {
        try withStore { (store: PostgresStore, url: String) throws in
            let other = try openStore(url)
            defer { try? other.close() }
            let lenient = LoginThrottle.Policy(allowedFailures: 1000, window: 300, lockout: 600)
            DispatchQueue.concurrentPerform(iterations: 40) { index in
                _ = try? (index % 2 == 0 ? store : other)
                    .recordLoginFailure(userKey: "alice", address: "a", at: t0, policy: lenient)
            }
            #expect(try store.loginFailures(userKey: "alice", address: "a")?.failures == 40)
        }
    }

    /// A policy that never locks (`.off`) never sets a lockout.
    @Test func policyOffNeverLocks() throws {
        try withStore { (store: PostgresStore, _: String) throws in
            for _ in 0 ..< 5 {
                #expect(try store.recordLoginFailure(userKey: "a", address: "b", at: t0, policy: .off).lockedUntil == nil)
            }
        }
    }
}
