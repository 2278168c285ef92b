import Foundation
import GRDB
import Synchronization
import Testing
@testable import BlogCore
@testable import BlogSQLite
import BlogTestSupport
@testable import BlogAuth
import BlogModel

@Suite("AccessTokens")
struct AccessTokensTests {
    /// A store in a temporary folder, tokens on the test clock, and alice.
    struct Fixture {
        let store: SQLiteStore
        let clock = TestClock()
        let alice: UserRecord
        var tokens: AccessTokens { AccessTokens(storage: store, now: clock.closure) }
    }

    func withTokens(_ body: (Fixture) throws -> Void) throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let alice = try store.createUser(name: "alice", passwordHash: "h", at: TestClock.start)
            try body(Fixture(store: store, alice: alice))
        }
    }

    static var base64url: Regex<Substring> { /[A-Za-z0-9_-]+/ }

    /// A label reaches the settings page and the admin's terminal: it
    /// keeps no control or bidirectional formatting character.
    @Test func aLabelKeepsNoControlOrBidiCharacter() throws {
        try withTokens { (fx: Fixture) throws in
            let hostile = "Quill\u{1B}[2J\u{202E}gpj.exe\u{2066}\r\nX"
            let (_, token) = try fx.tokens.issue(userID: fx.alice.id, kind: .bearer, scopes: [.create], label: hostile, lifetime: nil)
            #expect(token.label == "Quill[2Jgpj.exeX")
            #expect(try fx.tokens.list(ofUserID: fx.alice.id).first?.label == "Quill[2Jgpj.exeX", "stored so")
            let long = try fx.tokens.issue(userID: fx.alice.id, kind: .bearer, scopes: [.create],
                                           label: String(repeating: "é", count: 300), lifetime: nil).token
            #expect(long.label.unicodeScalars.count == AccessTokens.maxLabelLength)
            let empty = try fx.tokens.issue(userID: fx.alice.id, kind: .bearer, scopes: [.create], label: "\u{202E} \u{7}", lifetime: nil)
            #expect(empty.token.label == "token")
            #expect(AccessTokens.label("👩‍💻 laptop") == "👩‍💻 laptop", "a joiner in an emoji is no control")
        }
    }

    @Test func bearerTokenIssuedAndVerified() throws {
        try withTokens { (fx: Fixture) throws in
            let (secret, token) = try fx.tokens.issue(userID: fx.alice.id, kind: .bearer, scopes: [.media, .create],
                                                      label: "https://quill.p3k.io/", lifetime: nil)
            #expect(secret.hasPrefix("blogd_") && secret.count == 6 + 43)
            #expect(secret.dropFirst(6).wholeMatch(of: Self.base64url) != nil)
            #expect(token.userID == fx.alice.id && token.kind == .bearer && token.expiresAt == nil)
            #expect(token.scopes == "create media", "stored in one order, whatever the set's")
            #expect(token.label == "https://quill.p3k.io/" && token.createdAt == TestClock.start)
            #expect(token.allows(.create) && token.allows(.media) && !token.allows(.delete))

            let verified = try #require(try fx.tokens.verify(secret, kind: .bearer))
            #expect(verified.user == fx.alice && verified.token == token)
            #expect(try fx.tokens.verify(secret, kind: .session) == nil, "a bearer token opens no session")
            #expect(try fx.tokens.list(ofUserID: fx.alice.id) == [token])
        }
    }

    /// What the database keeps is the SHA-256 of the secret; the secret is
    /// in no column.
    @Test func onlyTheHashIsStored() throws {
        try withTokens { (fx: Fixture) throws in
            let (secret, _) = try fx.tokens.issue(userID: fx.alice.id, kind: .session, scopes: [], label: "Firefox", lifetime: 60)
            let rows = try fx.store.pool.read { try Row.fetchAll($0, sql: "SELECT * FROM access_tokens") }
            #expect(rows.count == 1)
            #expect(rows[0]["secret_hash"] as String == AccessTokens.Secret.hash(secret))
            let random = String(secret.suffix(20))
            for column in rows[0].columnNames {
                let value = rows[0][column] as DatabaseValue
                #expect(!value.description.contains(random), "\(column)")
            }
        }
    }

    @Test func sessionTokenHasNoPrefixAndNoScopes() throws {
        try withTokens { (fx: Fixture) throws in
            let (secret, token) = try fx.tokens.issue(userID: fx.alice.id, kind: .session, scopes: [.delete],
                                                      label: "Firefox", lifetime: 3600)
            #expect(secret.count == 43 && secret.wholeMatch(of: Self.base64url) != nil)
            #expect(token.scopes == "" && !token.allows(.delete), "a session's scopes are ignored")
            #expect(token.expiresAt == TestClock.start.addingTimeInterval(3600))
            #expect(try fx.tokens.verify(secret, kind: .session)?.token == token)
            #expect(try fx.tokens.verify(secret, kind: .bearer) == nil)
            #expect(try fx.tokens.verify("blogd_" + secret, kind: .session) == nil)
        }
    }

    @Test func everySecretIsNew() throws {
        try withTokens { (fx: Fixture) throws in
            var secrets: Set<String> = []
            for _ in 0 ..< 50 {
                secrets.insert(try fx.tokens.issue(userID: fx.alice.id, kind: .session, scopes: [], label: "", lifetime: nil).secret)
            }
            #expect(secrets.count == 50)
        }
    }

    /// Good until the moment it expires, on the injected clock; pruning
    /// (`BlogService.pruneLoginState`) then deletes it, and only it.
    @Test func expiresOnTheClock() throws {
        try withTokens { (fx: Fixture) throws in
            let (secret, _) = try fx.tokens.issue(userID: fx.alice.id, kind: .session, scopes: [], label: "", lifetime: 60)
            fx.clock.advance(by: 59.9)
            #expect(try fx.tokens.verify(secret, kind: .session) != nil)
            fx.clock.advance(by: 0.1)
            #expect(try fx.tokens.verify(secret, kind: .session) == nil, "expired at its expiry")
            #expect(try fx.tokens.list(ofUserID: fx.alice.id).count == 1, "still stored until pruned")
        }
    }

    @Test func pruningDeletesExpiredTokens() throws {
        try withService { (fx: ServiceFixture) throws in
            #expect(fx.send("register:alice:pw") == .registered)
            let alice = try #require(try fx.store.user(named: "alice"))
            let tokens = AccessTokens(storage: fx.store, now: fx.clock.closure)
            _ = try tokens.issue(userID: alice.id, kind: .session, scopes: [], label: "short", lifetime: 60)
            _ = try tokens.issue(userID: alice.id, kind: .session, scopes: [], label: "long", lifetime: 3600)
            _ = try tokens.issue(userID: alice.id, kind: .bearer, scopes: [.create], label: "forever", lifetime: nil)
            try fx.service.pruneLoginState()
            #expect(try tokens.list(ofUserID: alice.id).map(\.label) == ["forever", "long", "short"])
            fx.clock.advance(by: 61)
            try fx.service.pruneLoginState()
            #expect(try tokens.list(ofUserID: alice.id).map(\.label) == ["forever", "long"])
            fx.clock.advance(by: 86_400 * 365)
            try fx.service.pruneLoginState()
            #expect(try tokens.list(ofUserID: alice.id).map(\.label) == ["forever"])
        }
    }

    @Test func suspendedOrDeletedUsersVerifyNothing() throws {
        try withTokens { (fx: Fixture) throws in
            let (secret, _) = try fx.tokens.issue(userID: fx.alice.id, kind: .bearer, scopes: [.create], label: "", lifetime: nil)
            try fx.store.setSuspended(userID: fx.alice.id, true, at: fx.clock.now)
            #expect(try fx.tokens.verify(secret, kind: .bearer) == nil)
            try fx.store.setSuspended(userID: fx.alice.id, false, at: fx.clock.now)
            #expect(try fx.tokens.verify(secret, kind: .bearer) != nil, "the token works again once lifted")
            try fx.store.deleteUser(id: fx.alice.id)
            #expect(try fx.tokens.verify(secret, kind: .bearer) == nil)
            #expect(storageError {
                _ = try fx.tokens.issue(userID: fx.alice.id, kind: .bearer, scopes: [], label: "", lifetime: nil)
            } == .unknownUser)
        }
    }

    @Test func revokeTakesOnlyTheOwnersToken() throws {
        try withTokens { (fx: Fixture) throws in
            let bob = try fx.store.createUser(name: "bob", passwordHash: "h", at: TestClock.start)
            let (mine, token) = try fx.tokens.issue(userID: fx.alice.id, kind: .bearer, scopes: [.create], label: "", lifetime: nil)
            let (other, _) = try fx.tokens.issue(userID: fx.alice.id, kind: .bearer, scopes: [.create], label: "", lifetime: nil)
            #expect(try fx.tokens.revoke(id: token.id, ofUserID: bob.id) == false)
            #expect(try fx.tokens.verify(mine, kind: .bearer) != nil)
            #expect(try fx.tokens.revoke(id: token.id, ofUserID: fx.alice.id) == true)
            #expect(try fx.tokens.verify(mine, kind: .bearer) == nil)
            #expect(try fx.tokens.verify(other, kind: .bearer) != nil, "the user's other token stays")
            #expect(try fx.tokens.revoke(id: token.id, ofUserID: fx.alice.id) == false)
        }
    }

    /// A storage that counts hash look-ups.
    final class CountingStorage: ForwardingStorage, @unchecked Sendable {
        let lookups = Atomic<Int>(0)
        override func token(secretHash: String) throws(StorageError) -> AccessToken? {
            lookups.add(1, ordering: .relaxed)
            return try super.token(secretHash: secretHash)
        }
    }

    /// Secrets this server could not have made are refused before they
    /// are hashed or looked up: no megabyte is hashed for a hostile client.
    @Test func malformedSecretsAreRefusedUnhashed() throws {
        try withTokens { (fx: Fixture) throws in
            let counting = CountingStorage(fx.store)
            let tokens = AccessTokens(storage: counting, now: fx.clock.closure)
            let refused = ["", String(repeating: "a", count: 201), String(repeating: "A", count: 1 << 20),
                           "blogd_abc=", "abc+def", "abc/def", "abc def", "abc\n", "abc\0", "é", "blogd_😀", "a.b"]
            for secret in refused {
                #expect(try tokens.verify(secret, kind: .bearer) == nil, "\(secret.prefix(20))")
            }
            #expect(counting.lookups.load(ordering: .relaxed) == 0)
            for secret in [String(repeating: "a", count: 200), "blogd_x", "-_"] {
                #expect(try tokens.verify(secret, kind: .bearer) == nil)
            }
            #expect(counting.lookups.load(ordering: .relaxed) == 3, "well formed but unknown: looked up")
        }
    }

    @Test func secretHashAndEncoding() {
        #expect(AccessTokens.Secret.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(AccessTokens.Secret.hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(AccessTokens.Secret.base64url([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(AccessTokens.Secret.base64url([0x66, 0x6F]) == "Zm8", "no padding")
        #expect(AccessTokens.Secret.base64url(Array(repeating: 0, count: 32)).count == 43)
    }

    @Test func scopesParseAndPrint() throws {
        #expect(try AccessTokens.Scope.parse("create update delete media") == Set(AccessTokens.Scope.allCases))
        #expect(try AccessTokens.Scope.parse("  media\tcreate  media ") == [.media, .create])
        #expect(try AccessTokens.Scope.parse("") == [])
        #expect(throws: AccessTokens.Scope.Unknown(word: "publish")) { try AccessTokens.Scope.parse("create publish") }
        #expect(throws: AccessTokens.Scope.Unknown(word: "Create")) { try AccessTokens.Scope.parse("Create") }
        #expect(AccessTokens.Scope.text([.media, .delete, .create]) == "create delete media")
        #expect(AccessTokens.Scope.text([]) == "")
    }
}
