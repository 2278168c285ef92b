import BlogModel
import BlogTestSupport
import Foundation
import Testing

/// The failed-login count, by one rule on every backend (`LoginFailureSQL`).
@Suite("BlogStorage conformance: failed logins")
struct LoginFailureConformanceTests {
    static let strict = LoginPolicy(allowedFailures: 2, window: 300, lockout: 300)
    static let relaxed = LoginPolicy(allowedFailures: 10, window: 300, lockout: 300)

    @Test(arguments: Backend.available) func countsLocksAndStartsAgain(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let first = try store.recordLoginFailure(userKey: "alice", address: "192.0.2.1", at: t0, policy: Self.strict)
            #expect(first.failures == 1 && first.lockedUntil == nil)
            let second = try store.recordLoginFailure(userKey: "alice", address: "192.0.2.1", at: t0.addingTimeInterval(1),
                                                      policy: Self.strict)
            #expect(second.failures == 2 && second.lockedUntil == t0.addingTimeInterval(301))
            // Once the lockout is over, the next failure starts a new count.
            let after = try store.recordLoginFailure(userKey: "alice", address: "192.0.2.1", at: t0.addingTimeInterval(302),
                                                     policy: Self.strict)
            #expect(after.failures == 1 && after.lockedUntil == nil)
        }
    }

    /// A reload that raises the limit never shortens a lockout in force:
    /// the two backends once differed here (SQLite lifted it).
    @Test(arguments: Backend.available) func aRaisedLimitKeepsALockoutInForce(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            for second in 0 ..< 2 {
                _ = try store.recordLoginFailure(userKey: "bob", address: "192.0.2.9", at: t0.addingTimeInterval(Double(second)),
                                                 policy: Self.strict)
            }
            let later = try store.recordLoginFailure(userKey: "bob", address: "192.0.2.9", at: t0.addingTimeInterval(10),
                                                     policy: Self.relaxed)
            #expect(later.failures == 3)
            #expect(later.lockedUntil == t0.addingTimeInterval(301))
        }
    }
}
