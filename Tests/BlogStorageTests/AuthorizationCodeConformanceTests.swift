import BlogTestSupport
import Foundation
import Testing
import BlogModel

/// IndieAuth authorization codes, the same on every backend: stored by
/// hash, claimed once whoever asks, pruned by expiry, gone with their user.
@Suite("BlogStorage conformance: authorization codes")
struct AuthorizationCodeConformanceTests {
    static func hash(_ n: Int) -> String { String(format: "%064x", n) }

    static func code(_ n: Int, userID: Int64, at date: Date = t0, lifetime: Double = 60) -> AuthorizationCode {
        AuthorizationCode(codeHash: hash(n), userID: userID, clientID: "https://app.example/",
                          redirectURI: "https://app.example/callback?x=1", scopes: "create profile",
                          codeChallenge: String(repeating: "A", count: 43), createdAt: date,
                          expiresAt: date.addingTimeInterval(lifetime))
    }

    @Test(arguments: Backend.available) func claimedOnceThenKnownAsReplay(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let stored = Self.code(1, userID: alice.id, at: t0.addingTimeInterval(0.9996))
            try store.storeAuthorizationCode(stored)
            try store.storeAuthorizationCode(Self.code(0xabc, userID: alice.id))
            #expect(try store.authorizationCode(hash: Self.hash(1)) == AuthorizationCode(
                codeHash: Self.hash(1), userID: alice.id, clientID: "https://app.example/",
                redirectURI: "https://app.example/callback?x=1", scopes: "create profile",
                codeChallenge: String(repeating: "A", count: 43), createdAt: Date(timeIntervalSince1970: 1_800_000_000.999),
                expiresAt: Date(timeIntervalSince1970: 1_800_000_060.999)), "read back as stored, to the millisecond")
            #expect(try store.authorizationCode(hash: Self.hash(2)) == nil)
            let used = t0.addingTimeInterval(5.0004)
            guard case .claimed(let first) = try store.claimAuthorizationCode(hash: Self.hash(1), at: used) else {
                Issue.record("the first claim must claim it")
                return
            }
            #expect(first.userID == alice.id && first.clientID == "https://app.example/")
            #expect(first.redirectURI == "https://app.example/callback?x=1" && first.scopes == "create profile")
            #expect(first.codeChallenge == String(repeating: "A", count: 43))
            #expect(first.createdAt == Date(timeIntervalSince1970: 1_800_000_000.999), "to the millisecond")
            #expect(first.expiresAt == Date(timeIntervalSince1970: 1_800_000_060.999))
            #expect(first.usedAt == Date(timeIntervalSince1970: 1_800_000_005))
            #expect(first.tokenID == nil)

            try store.setAuthorizationCodeToken(hash: Self.hash(1), tokenID: 77)
            let again = try store.claimAuthorizationCode(hash: Self.hash(1), at: used.addingTimeInterval(1))
            guard case .claimedBefore(let replayed) = again else {
                Issue.record("a second claim is a replay: \(again)")
                return
            }
            #expect(replayed.tokenID == 77 && replayed.usedAt == first.usedAt, "the first use is kept")
            #expect(try store.authorizationCode(hash: Self.hash(1)) == replayed)
            #expect(try store.claimAuthorizationCode(hash: Self.hash(2), at: used) == .unknown)
            #expect(try store.claimAuthorizationCode(hash: Self.hash(0xabc).uppercased(), at: used) == .unknown,
                    "the hash is matched exactly")
        }
    }

    /// Claims racing on several threads (as several instances would):
    /// exactly one wins.
    @Test(arguments: Backend.available) func racingClaimsHaveOneWinner(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            try store.storeAuthorizationCode(Self.code(9, userID: alice.id))
            let results = ResultBox()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                let claim = try? store.claimAuthorizationCode(hash: Self.hash(9), at: t0.addingTimeInterval(1))
                results.add(claim)
            }
            let claims = results.values
            #expect(claims.count == 8)
            #expect(claims.filter { if case .claimed = $0 { true } else { false } }.count == 1)
            #expect(claims.filter { if case .claimedBefore = $0 { true } else { false } }.count == 7)
        }
    }

    @Test(arguments: Backend.available) func unknownUserAndTakenHash(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            #expect(storageError { try store.storeAuthorizationCode(Self.code(1, userID: 42)) } == .unknownUser)
            #expect(try store.claimAuthorizationCode(hash: Self.hash(1), at: t0) == .unknown)
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            try store.storeAuthorizationCode(Self.code(1, userID: alice.id))
            var other = Self.code(1, userID: alice.id)
            other.clientID = "https://evil.example/"
            #expect(storageError { try store.storeAuthorizationCode(other) } == .tokenHashTaken)
            guard case .claimed(let kept) = try store.claimAuthorizationCode(hash: Self.hash(1), at: t0) else {
                Issue.record("the first code stays")
                return
            }
            #expect(kept.clientID == "https://app.example/")
        }
    }

    @Test(arguments: Backend.available) func prunedByExpiryAndGoneWithTheirUser(_ backend: Backend) throws {
        try backend.withStore { (store: any BlogStorage) throws in
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: t0)
            let bob = try store.createUser(name: "bob", passwordHash: "h", at: t0)
            try store.storeAuthorizationCode(Self.code(1, userID: alice.id, lifetime: 60))
            try store.storeAuthorizationCode(Self.code(2, userID: alice.id, lifetime: 120))
            try store.storeAuthorizationCode(Self.code(3, userID: bob.id, lifetime: 60))
            _ = try store.claimAuthorizationCode(hash: Self.hash(3), at: t0)
            #expect(try store.deleteAuthorizationCodes(expiredBefore: t0.addingTimeInterval(60)) == 0, "not before its expiry")
            #expect(try store.deleteAuthorizationCodes(expiredBefore: t0.addingTimeInterval(61)) == 2, "used or not")
            #expect(try store.claimAuthorizationCode(hash: Self.hash(1), at: t0) == .unknown)
            try store.deleteUser(id: alice.id)
            #expect(try store.claimAuthorizationCode(hash: Self.hash(2), at: t0) == .unknown, "gone with alice")
        }
    }
}

/// Results gathered from several threads.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var claims: [AuthorizationCodeClaim?] = []

    func add(_ claim: AuthorizationCodeClaim?) {
        lock.lock()
        claims.append(claim)
        lock.unlock()
    }

    var values: [AuthorizationCodeClaim] {
        lock.lock()
        defer { lock.unlock() }
        return claims.compactMap { $0 }
    }
}
