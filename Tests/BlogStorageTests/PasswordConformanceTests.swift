import BlogCore
import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// A new password, the same on every backend: the hash replaced, and in
/// the same commit the user's leases (every address) and web sessions
/// gone; bearer tokens and everyone else's state kept.
@Suite("BlogStorage conformance: passwords")
struct PasswordConformanceTests {
    static func hash(_ n: Int) -> String { String(format: "%064x", n) }

    @Test(arguments: Backend.available) func aNewPasswordEndsLeasesAndSessions(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "Alice", passwordHash: "old", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "bobs", at: t0)
            let later = t0.addingTimeInterval(3600)
            for address in ["192.0.2.1", "2001:db8::1"] {
                try store.grantLease(userKey: "alice", address: address, until: later)
                try store.grantLease(userKey: "bob", address: address, until: later)
            }
            let session = try store.createToken(userID: alice.id, secretHash: Self.hash(1), kind: .session, scopes: "",
                                                label: "web", at: t0, expires: later)
            let app = try store.createToken(userID: alice.id, secretHash: Self.hash(2), kind: .bearer, scopes: "create",
                                            label: "app", at: t0, expires: nil)
            let bobs = try store.createToken(userID: bob.id, secretHash: Self.hash(3), kind: .session, scopes: "",
                                             label: "web", at: t0, expires: later)

            try store.updatePassword(userID: alice.id, passwordHash: "new")

            #expect(try store.user(id: alice.id)?.passwordHash == "new")
            #expect(try store.user(named: "alice")?.name == "Alice", "the name is kept as registered")
            #expect(try store.leaseExpiry(userKey: "alice", address: "192.0.2.1") == nil)
            #expect(try store.leaseExpiry(userKey: "alice", address: "2001:db8::1") == nil)
            #expect(try store.token(secretHash: Self.hash(1)) == nil, "the web session \(session.id) ended")
            #expect(try store.token(secretHash: Self.hash(2)) == app, "a bearer token stays")
            // Another user keeps everything.
            #expect(try store.user(id: bob.id)?.passwordHash == "bobs")
            #expect(try store.leaseExpiry(userKey: "bob", address: "192.0.2.1") != nil)
            #expect(try store.token(secretHash: Self.hash(3)) == bobs)
        }
    }

    @Test(arguments: Backend.available) func anUnknownUserChangesNothing(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "old", at: t0)
            try store.grantLease(userKey: "alice", address: "192.0.2.1", until: t0.addingTimeInterval(3600))
            #expect(storageError { try store.updatePassword(userID: alice.id + 100, passwordHash: "new") } == .unknownUser)
            #expect(try store.user(id: alice.id)?.passwordHash == "old")
            #expect(try store.leaseExpiry(userKey: "alice", address: "192.0.2.1") != nil)
        }
    }
}
