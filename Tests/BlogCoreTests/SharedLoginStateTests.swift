import Foundation
import Testing
import BlogTestSupport
@testable import BlogCore
import BlogSQLite
@testable import BlogAuth
import BlogModel

/// Failed logins counted in the database, as several instances on one
/// database count them.
@Suite("Shared login state")
struct SharedLoginStateTests {
    private let policy = LoginThrottle.Policy(allowedFailures: 3, window: 60, lockout: 120)

    private func withStore(_ body: (SQLiteStore) throws -> Void) throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            try body(store)
        }
    }

    @Test func failuresCountUpAndLockAtTheLimit() throws {
        try withStore { (store: SQLiteStore) throws in
            let start = TestClock.start
            let first = try store.recordLoginFailure(userKey: "alice", address: "10.0.0.1", at: start, policy: policy)
            #expect(first == LoginFailures(failures: 1, firstFailure: start, lockedUntil: nil))
            _ = try store.recordLoginFailure(userKey: "alice", address: "10.0.0.1", at: start + 1, policy: policy)
            let third = try store.recordLoginFailure(userKey: "alice", address: "10.0.0.1", at: start + 2, policy: policy)
            #expect(third == LoginFailures(failures: 3, firstFailure: start, lockedUntil: start + 122))
            #expect(try store.loginFailures(userKey: "alice", address: "10.0.0.1") == third)
            #expect(try store.loginFailures(userKey: "alice", address: "10.0.0.2") == nil)
        }
    }

    @Test func aStaleRecordStartsAgain() throws {
        try withStore { (store: SQLiteStore) throws in
            let start = TestClock.start
            _ = try store.recordLoginFailure(userKey: "alice", address: "a", at: start, policy: policy)
            let late = try store.recordLoginFailure(userKey: "alice", address: "a", at: start + 61, policy: policy)
            #expect(late == LoginFailures(failures: 1, firstFailure: start + 61, lockedUntil: nil), "past the window")
            for second in 0 ..< 2 {
                _ = try store.recordLoginFailure(userKey: "alice", address: "a", at: start + 62 + Double(second), policy: policy)
            }
            let afterLockout = try store.recordLoginFailure(userKey: "alice", address: "a", at: start + 63 + 120, policy: policy)
            #expect(afterLockout == LoginFailures(failures: 1, firstFailure: start + 183, lockedUntil: nil), "lockout over")
            try store.clearLoginFailures(userKey: "alice", address: "a")
            #expect(try store.loginFailures(userKey: "alice", address: "a") == nil)
        }
    }

    @Test func twoInstancesShareTheCount() throws {
        try withStore { (store: SQLiteStore) throws in
            let clock = TestClock()
            let one = LoginThrottle(policy: policy, storage: store, now: clock.closure)
            let other = LoginThrottle(policy: policy, storage: store, now: clock.closure)
            // Guesses spread over two instances count as one series.
            one.recordFailure(user("alice"), from: "10.0.0.9")
            other.recordFailure(user("alice"), from: "10.0.0.9")
            one.recordFailure(user("alice"), from: "10.0.0.9")
            #expect(!other.begin(user("alice"), from: "10.0.0.9"), "locked out by failures counted elsewhere")
            #expect(other.begin(user("alice"), from: "10.0.0.8"), "another address is not")
            other.finish(user("alice"), from: "10.0.0.8", succeeded: true)
            clock.advance(by: 121)
            #expect(other.begin(user("alice"), from: "10.0.0.9"))
            other.finish(user("alice"), from: "10.0.0.9", succeeded: true)
            #expect(try store.loginFailures(userKey: "alice", address: "10.0.0.9") == nil, "a success clears it for all")
        }
    }

    @Test func checksUnderWayCountWithStoredFailures() throws {
        try withStore { (store: SQLiteStore) throws in
            let clock = TestClock()
            let one = LoginThrottle(policy: policy, storage: store, now: clock.closure)
            let other = LoginThrottle(policy: policy, storage: store, now: clock.closure)
            other.recordFailure(user("bob"), from: "a")
            other.recordFailure(user("bob"), from: "a")
            #expect(one.begin(user("bob"), from: "a"))
            #expect(!one.begin(user("bob"), from: "a"), "two failures stored plus one check under way reach three")
            one.finish(user("bob"), from: "a", succeeded: false)
            #expect(try store.loginFailures(userKey: "bob", address: "a")?.failures == 3)
        }
    }
}
