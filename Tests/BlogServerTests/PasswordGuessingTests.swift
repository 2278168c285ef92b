import BlogCore
import BlogServer
import Foundation
import Testing
import BlogAuth

/// Password guessing over the wire: after a few wrong passwords for one
/// user from one address, logins for that user from that address are
/// refused for a while, without bothering anyone else.
///
/// A second address on loopback: the client binds its socket to 127.0.0.2
/// before connecting to the server at 127.0.0.1 (all of 127/8 is loopback
/// on Linux), so the server sees another peer.
@Suite("Password guessing", .serialized)
struct PasswordGuessingTests {
    static let guesser = "127.0.0.1"
    static let elsewhere = "127.0.0.2"
    static let lockout = 1.5

    static func fixture(keepAlive: Bool = false, window: Double = 60, lockout: Double = lockout,
                        scrypt: ScryptParameters = .testing) throws -> ServerFixture {
        try ServerFixture(settings: .init(
            scrypt: scrypt,
            loginThrottle: .init(allowedFailures: 3, window: window, lockout: lockout))
        ) { $0.connection.keepAlive = keepAlive }
    }

    /// One message on its own connection from `source`; the first reply.
    static func ask(_ f: ServerFixture, _ message: String, from source: String = guesser) throws -> String {
        let client = try f.client(source: source)
        defer { client.close() }
        try client.send(message)
        return try client.readReply()
    }

    @Test func secondAddressIsSeenAsAnotherPeer() throws {
        let f = try Self.fixture()
        defer { f.tearDown() }
        // Registering grants a lease to the registering address only.
        #expect(try Self.ask(f, "register:alice:right[E];", from: Self.elsewhere) == "reg:OK[E];")
        #expect(try Self.ask(f, "newpost:alice:From .1:x[E];", from: Self.guesser) == "post:NA[E];")
        #expect(try Self.ask(f, "newpost:alice:From .2:x[E];", from: Self.elsewhere) == "post:OK[E];")
    }

    /// Three wrong passwords lock the user out from that address, even with
    /// the right password; another address is not affected, nor is another
    /// user at the same address; after the lockout the right password works
    /// again.
    @Test func threeWrongPasswordsLockThatAddressOutUntilTheLockoutPasses() throws {
        let f = try Self.fixture()
        defer { f.tearDown() }
        #expect(try Self.ask(f, "register:alice:right[E];") == "reg:OK[E];")
        #expect(try Self.ask(f, "register:bob:right[E];", from: Self.elsewhere) == "reg:OK[E];")
        for guess in ["wrong1", "wrong2", "wrong3"] {
            #expect(try Self.ask(f, "login:alice:\(guess)[E];") == "log:NA[E];")
        }
        #expect(try Self.ask(f, "login:alice:right[E];") == "log:NA[E];", "the right password got through a lockout")
        #expect(try Self.ask(f, "login:alice:right[E];", from: Self.elsewhere) == "log:OK[E];")
        #expect(try Self.ask(f, "login:bob:right[E];") == "log:OK[E];")
        // Still locked a little later, and a refused attempt does not unlock.
        f.advance(by: Self.lockout - 0.01)
        #expect(try Self.ask(f, "login:alice:right[E];") == "log:NA[E];")

        f.advance(by: 0.01)
        #expect(try Self.ask(f, "login:alice:right[E];") == "log:OK[E];")
    }

    /// A successful login forgets the earlier failures: two wrong, right,
    /// two wrong, right all work; without the reset the fourth failure
    /// would lock.
    @Test func successfulLoginResetsTheCount() throws {
        let f = try Self.fixture()
        defer { f.tearDown() }
        #expect(try Self.ask(f, "register:alice:right[E];") == "reg:OK[E];")
        for round in 1...3 {
            #expect(try Self.ask(f, "login:alice:nope[E];") == "log:NA[E];")
            #expect(try Self.ask(f, "login:alice:nope again[E];") == "log:NA[E];")
            #expect(try Self.ask(f, "login:alice:right[E];") == "log:OK[E];", "round \(round)")
        }
    }

    /// Names are one user in any case, so are their failures.
    @Test func failuresInAnyCaseCountForOneUser() throws {
        let f = try Self.fixture()
        defer { f.tearDown() }
        #expect(try Self.ask(f, "register:Alice:right[E];") == "reg:OK[E];")
        for name in ["alice", "ALICE", "Alice"] {
            #expect(try Self.ask(f, "login:\(name):wrong[E];") == "log:NA[E];")
        }
        #expect(try Self.ask(f, "login:aLiCe:right[E];") == "log:NA[E];")
        #expect(try Self.ask(f, "login:Alice:right[E];", from: Self.elsewhere) == "log:OK[E];")
    }

    /// Guesses pipelined on one keep-alive connection: after the third, even
    /// the right password is refused, and the guesser cannot post.
    @Test func pipelinedGuessesOnOneConnectionAreLockedToo() throws {
        let f = try Self.fixture(keepAlive: true)
        defer { f.tearDown() }
        #expect(try Self.ask(f, "register:alice:right[E];", from: Self.elsewhere) == "reg:OK[E];")
        let client = try f.client(source: Self.guesser)
        let guesses = (1...10).map { "login:alice:guess\($0)[E];" }.joined()
        try client.send(guesses + "login:alice:right[E];newpost:alice:Owned:by the guesser[E];")
        for index in 1...11 {
            #expect(try client.readReply() == "log:NA[E];", "reply \(index)")
        }
        #expect(try client.readReply() == "post:NA[E];")
        client.close()
        #expect(try f.postCount(of: "alice") == 0)
        #expect(try Self.ask(f, "login:alice:right[E];", from: Self.elsewhere) == "log:OK[E];")
    }

    /// An unknown name is answered the same way throughout, so the lockout
    /// does not tell which names exist.
    @Test func lockoutLooksTheSameForUnknownNames() throws {
        let f = try Self.fixture()
        defer { f.tearDown() }
        #expect(try Self.ask(f, "register:alice:right[E];") == "reg:OK[E];")
        let known = try (1...5).map { _ in try Self.ask(f, "login:alice:wrong[E];") }
        let unknown = try (1...5).map { _ in try Self.ask(f, "login:nobody:wrong[E];") }
        #expect(known == unknown)
        #expect(known.allSatisfy { $0 == "log:NA[E];" })
    }

    /// Failures further apart than the window do not add up.
    @Test func failuresOutsideTheWindowDoNotAddUp() throws {
        let f = try Self.fixture(window: 0.5, lockout: 60)
        defer { f.tearDown() }
        #expect(try Self.ask(f, "register:alice:right[E];") == "reg:OK[E];")
        #expect(try Self.ask(f, "login:alice:wrong[E];") == "log:NA[E];")
        #expect(try Self.ask(f, "login:alice:wrong[E];") == "log:NA[E];")
        f.advance(by: 0.6)
        #expect(try Self.ask(f, "login:alice:wrong[E];") == "log:NA[E];")
        #expect(try Self.ask(f, "login:alice:right[E];") == "log:OK[E];")
    }

    /// A locked-out attempt is refused before any password hashing: with a
    /// costly scrypt, it is answered many times faster than a wrong guess.
    @Test func lockedOutAttemptCostsNoHashing() throws {
        // 8 MiB and tens of milliseconds per hash: slow enough to see.
        let f = try Self.fixture(scrypt: ScryptParameters(logN: 13, r: 8, p: 1))
        defer { f.tearDown() }
        #expect(try Self.ask(f, "register:alice:right[E];") == "reg:OK[E];")
        func timed(_ message: String) throws -> (String, Double) {
            let started = Date()
            let reply = try Self.ask(f, message)
            return (reply, Date().timeIntervalSince(started))
        }
        var wrongTimes: [Double] = []
        for _ in 1...3 {
            let (reply, time) = try timed("login:alice:wrong[E];")
            #expect(reply == "log:NA[E];")
            wrongTimes.append(time)
        }
        var lockedTimes: [Double] = []
        let hashesBefore = f.service.passwordHashes
        for _ in 1...5 {
            let (reply, time) = try timed("login:alice:right[E];")
            #expect(reply == "log:NA[E];")
            lockedTimes.append(time)
        }
        // The behaviour, counted rather than timed: no hash at all.
        #expect(f.service.passwordHashes == hashesBefore, "a locked-out login checked the password")
        let wrong = wrongTimes.sorted()[1]
        let locked = lockedTimes.sorted()[2]
        print("password guessing: wrong password \(String(format: "%.1f", wrong * 1000)) ms, locked out \(String(format: "%.1f", locked * 1000)) ms (medians)")
    }

    /// Guesses sent all at once, each on its own connection: the limit is
    /// on password checks, so exactly `allowedFailures` of them are checked
    /// and the rest refused without hashing. (Checks under way count
    /// against the limit; before they did, a burst of N parallel guesses
    /// got N checks, since each passed the lock test before any failure
    /// was recorded.)
    @Test func parallelGuessesGetNoMoreChecksThanTheLimit() throws {
        // Costly enough that checked and unchecked guesses differ clearly.
        let f = try Self.fixture(scrypt: ScryptParameters(logN: 13, r: 8, p: 1))
        defer { f.tearDown() }
        #expect(try Self.ask(f, "register:alice:right[E];") == "reg:OK[E];")
        // What one check costs here, from another address (not counted
        // against 127.0.0.1).
        var singles: [Double] = []
        for _ in 1...3 {
            let started = Date()
            #expect(try Self.ask(f, "login:alice:right[E];", from: Self.elsewhere) == "log:OK[E];")
            singles.append(Date().timeIntervalSince(started))
        }
        let single = singles.sorted()[1]
        let burst = 24
        let hashesBefore = f.service.passwordHashes
        // Each guess: when it was sent, and when its reply came.
        let spans = Locked<[(sent: Date, answered: Date)]>([])
        let replies = Locked<[String]>([])
        let finished = runOnThreads(burst, prepare: { _ in try? f.client(source: Self.guesser) }) { index, client in
            guard let client else { return }
            let sent = Date()
            let reply = (try? client.send("login:alice:guess\(index)[E];")).flatMap { try? client.readReply() } ?? "no reply"
            replies.withLock { $0.append(reply) }
            spans.withLock { $0.append((sent, Date())) }
        }
        #expect(finished)
        let first = spans.value.map(\.sent).min() ?? Date()
        let total = (spans.value.map(\.answered).max() ?? first).timeIntervalSince(first)
        let times = spans.value.map { $0.answered.timeIntervalSince($0.sent) }
        #expect(replies.value.count == burst && replies.value.allSatisfy { $0 == "log:NA[E];" }, "\(replies.value)")
        let checked = times.filter { $0 > single / 2 }.count
        print("password guessing: \(burst) parallel guesses took \(String(format: "%.2f", total)) s,"
              + " one check \(String(format: "%.0f", single * 1000)) ms; \(checked) answered slower than half a check")
        // Counted, not timed: the limit (3) of password checks, no more.
        let hashes = f.service.passwordHashes - hashesBefore
        #expect(hashes == 3, "\(burst) parallel guesses got \(hashes) password checks, not 3")
        #expect(try Self.ask(f, "login:alice:right[E];") == "log:NA[E];")
    }
}
