import Foundation
import Testing
import BlogTestSupport
@testable import BlogCore
import BlogSQLite
@testable import BlogAuth

/// A lease held in one process's memory is checked against the database
/// again after `LoginLeases.recheck` seconds: one ended elsewhere (a new
/// password set by `blogd passwd`, another instance) stops within that
/// time; one still there goes on without a second grant.
@Suite("Lease recheck")
struct LeaseRecheckTests {
    @Test func aLeaseEndedInTheDatabaseStopsWithinTheRecheck() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let clock = TestClock()
            let server = LoginLeases(duration: 3600, storage: store, now: clock.closure)
            let alice = try store.createUser(name: "alice", passwordHash: "old", at: TestClock.start)
            try server.grant(user("alice"), from: "10.0.0.1")
            try server.grant(user("alice"), from: "10.0.0.2")
            #expect(try server.isHeld(by: user("alice"), from: "10.0.0.1"))

            // The admin's command, in another process: the database only.
            try store.updatePassword(userID: alice.id, passwordHash: "new")
            clock.advance(by: LoginLeases.recheck - 1)
            #expect(try server.isHeld(by: user("alice"), from: "10.0.0.1"), "trusted in memory a moment")
            clock.advance(by: 1)
            #expect(try !server.isHeld(by: user("alice"), from: "10.0.0.1"), "asked again: ended")
            #expect(try !server.isHeld(by: user("alice"), from: "10.0.0.2"))
            #expect(try !server.isHeld(by: user("alice"), from: "10.0.0.1"), "and forgotten here")
        }
    }

    @Test func aLeaseStillInTheDatabaseGoesOn() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let clock = TestClock()
            let server = LoginLeases(duration: 60, storage: store, now: clock.closure)
            try server.grant(user("bob"), from: "10.0.0.1")
            for _ in 0..<11 {
                clock.advance(by: LoginLeases.recheck)
                #expect(try server.isHeld(by: user("bob"), from: "10.0.0.1"))
            }
            #expect(server.count == 1)
            clock.advance(by: 5)
            #expect(try !server.isHeld(by: user("bob"), from: "10.0.0.1"), "expired at grant + duration")
        }
    }

    @Test func withoutADatabaseMemoryIsTheWholeTruth() throws {
        let clock = TestClock()
        let leases = LoginLeases(duration: 3600, now: clock.closure)
        try leases.grant(user("carol"), from: "10.0.0.1")
        clock.advance(by: 10 * LoginLeases.recheck)
        #expect(try leases.isHeld(by: user("carol"), from: "10.0.0.1"))
        leases.forget(user("Carol"))
        #expect(try !leases.isHeld(by: user("carol"), from: "10.0.0.1"))
    }
}
