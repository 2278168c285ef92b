import BlogCore
import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// Access tokens, the same on every backend: stored by hash, kept apart
/// per user, pruned by expiry, gone with their user.
@Suite("BlogStorage conformance: access tokens")
struct TokenConformanceTests {
    /// A stand-in for a secret's SHA-256: 64 hex digits, distinct for each `n`.
    static func hash(_ n: Int) -> String { String(format: "%064x", n) }

    @Test(arguments: Backend.available) func createAndReadBack(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let odd = t0.addingTimeInterval(0.9996)
            let bearer = try store.createToken(userID: alice.id, secretHash: Self.hash(0xabc), kind: .bearer,
                                               scopes: "create media", label: "https://quill.p3k.io/", at: odd, expires: nil)
            #expect(bearer.id > 0 && bearer.userID == alice.id && bearer.kind == .bearer)
            #expect(bearer.scopes == "create media" && bearer.label == "https://quill.p3k.io/")
            #expect(bearer.createdAt == Date(timeIntervalSince1970: 1_800_000_000.999), "to the millisecond, as stored")
            #expect(bearer.expiresAt == nil)
            let session = try store.createToken(userID: alice.id, secretHash: Self.hash(2), kind: .session, scopes: "",
                                                label: "Firefox ünïcödé 😀", at: t0, expires: t0.addingTimeInterval(86_400.0005))
            #expect(session.id != bearer.id)
            #expect(session.expiresAt == t0.addingTimeInterval(86_400))

            #expect(try store.token(secretHash: Self.hash(0xabc)) == bearer, "reads back as the insert returned it")
            #expect(try store.token(secretHash: Self.hash(2)) == session)
            #expect(try store.token(secretHash: Self.hash(3)) == nil)
            #expect(try store.token(secretHash: Self.hash(0xabc).uppercased()) == nil, "the hash is matched exactly")
            #expect(try store.token(secretHash: "") == nil)
        }
    }

    @Test(arguments: Backend.available) func unknownUser(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            #expect(storageError {
                _ = try store.createToken(userID: 42, secretHash: Self.hash(1), kind: .bearer, scopes: "create", label: "x",
                                          at: t0, expires: nil)
            } == .unknownUser)
            #expect(try store.token(secretHash: Self.hash(1)) == nil)
            #expect(try store.tokens(ofUserID: 42).isEmpty)
            #expect(try store.deleteToken(id: 1, ofUserID: 42) == false)
            #expect(try store.deleteTokens(ofUserID: 42, kind: nil) == 0)
        }
    }

    /// The same hash twice is refused, whoever it is for, and the first
    /// token stays as it was.
    @Test(arguments: Backend.available) func hashIsUnique(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            let first = try store.createToken(userID: alice.id, secretHash: Self.hash(7), kind: .session, scopes: "",
                                              label: "a", at: t0, expires: nil)
            for (user, kind) in [(alice, AccessToken.Kind.session), (bob, .bearer)] {
                #expect(storageError {
                    _ = try store.createToken(userID: user.id, secretHash: Self.hash(7), kind: kind, scopes: "", label: "b",
                                              at: t0, expires: nil)
                } == StorageError.tokenHashTaken, "\(user.name)")
            }
            #expect(try store.token(secretHash: Self.hash(7)) == first)
            #expect(try store.tokens(ofUserID: bob.id).isEmpty)
            #expect(try store.tokens(ofUserID: alice.id) == [first])
        }
    }

    /// Newest first by the order they were made, whatever their times.
    @Test(arguments: Backend.available) func listNewestFirst(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            var made: [AccessToken] = []
            for index in 0 ..< 4 {
                made.append(try store.createToken(userID: alice.id, secretHash: Self.hash(index), kind: index % 2 == 0 ? .session : .bearer,
                                                  scopes: index % 2 == 0 ? "" : "create", label: "t\(index)",
                                                  at: t0.addingTimeInterval(-Double(index)), expires: nil))
            }
            #expect(try store.tokens(ofUserID: alice.id) == made.reversed())
        }
    }

    /// Deleting with the wrong owner deletes nothing; logging out
    /// everywhere touches one user, and one kind when asked.
    @Test(arguments: Backend.available) func usersAreKeptApart(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            func make(_ user: UserRecord, _ n: Int, _ kind: AccessToken.Kind) throws -> AccessToken {
                try store.createToken(userID: user.id, secretHash: Self.hash(n), kind: kind, scopes: kind == .bearer ? "create" : "",
                                      label: "\(user.name) \(n)", at: t0, expires: nil)
            }
            let a1 = try make(alice, 1, .session), a2 = try make(alice, 2, .bearer), a3 = try make(alice, 3, .session)
            let b1 = try make(bob, 4, .session), b2 = try make(bob, 5, .bearer)
            #expect(try store.tokens(ofUserID: alice.id) == [a3, a2, a1])
            #expect(try store.tokens(ofUserID: bob.id) == [b2, b1])

            #expect(try store.deleteToken(id: a1.id, ofUserID: bob.id) == false, "not bob's")
            #expect(try store.token(secretHash: Self.hash(1)) == a1)
            #expect(try store.deleteToken(id: a1.id, ofUserID: alice.id) == true)
            #expect(try store.deleteToken(id: a1.id, ofUserID: alice.id) == false, "gone already")
            #expect(try store.token(secretHash: Self.hash(1)) == nil)

            #expect(try store.deleteTokens(ofUserID: alice.id, kind: .session) == 1)
            #expect(try store.tokens(ofUserID: alice.id) == [a2], "the bearer token stays")
            #expect(try store.deleteTokens(ofUserID: bob.id, kind: nil) == 2)
            #expect(try store.tokens(ofUserID: bob.id).isEmpty)
            #expect(try store.tokens(ofUserID: alice.id) == [a2], "alice's stay")
        }
    }

    /// Pruning deletes what expired strictly before the date, and never a
    /// token without an expiry.
    @Test(arguments: Backend.available) func pruningByExpiry(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            func make(_ user: UserRecord, _ n: Int, expires: Double?) throws -> AccessToken {
                try store.createToken(userID: user.id, secretHash: Self.hash(n), kind: .session, scopes: "", label: "",
                                      at: t0, expires: expires.map { t0.addingTimeInterval($0) })
            }
            let forever = try make(alice, 1, expires: nil)
            _ = try make(alice, 2, expires: 10)
            let later = try make(alice, 3, expires: 100)
            _ = try make(bob, 4, expires: 50)
            let bobForever = try make(bob, 5, expires: nil)
            let edge = try make(bob, 6, expires: 60.001)

            #expect(try store.deleteTokens(expiredBefore: t0.addingTimeInterval(10)) == 0, "expiring at the date is not before it")
            #expect(try store.deleteTokens(expiredBefore: t0.addingTimeInterval(60.001)) == 2)
            #expect(try store.tokens(ofUserID: alice.id) == [later, forever])
            #expect(try store.tokens(ofUserID: bob.id) == [edge, bobForever])
            #expect(try store.deleteTokens(expiredBefore: t0.addingTimeInterval(100 * 365 * 86_400)) == 2)
            #expect(try store.tokens(ofUserID: alice.id) == [forever])
            #expect(try store.tokens(ofUserID: bob.id) == [bobForever])
        }
    }

    @Test(arguments: Backend.available) func deletingTheUserDeletesTheirTokens(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            _ = try store.createToken(userID: alice.id, secretHash: Self.hash(1), kind: .session, scopes: "", label: "",
                                      at: t0, expires: nil)
            _ = try store.createToken(userID: alice.id, secretHash: Self.hash(2), kind: .bearer, scopes: "create", label: "",
                                      at: t0, expires: t0.addingTimeInterval(60))
            let kept = try store.createToken(userID: bob.id, secretHash: Self.hash(3), kind: .bearer, scopes: "create", label: "",
                                             at: t0, expires: nil)
            try store.deleteUser(id: alice.id)
            #expect(try store.token(secretHash: Self.hash(1)) == nil)
            #expect(try store.token(secretHash: Self.hash(2)) == nil)
            #expect(try store.tokens(ofUserID: alice.id).isEmpty)
            #expect(try store.token(secretHash: Self.hash(3)) == kept)
            // The hash is free again with its token gone.
            let again = try store.createToken(userID: bob.id, secretHash: Self.hash(1), kind: .session, scopes: "", label: "",
                                              at: t0, expires: nil)
            #expect(try store.token(secretHash: Self.hash(1)) == again)
        }
    }
}
