import BlogCore
import BlogFetch
import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// `InboxVerifier` and its `KeyFetcher` against a real key server on
/// loopback, through the bounded fetcher, on a test clock: a key fetched
/// once and kept, fetched again after a failed verify (a rotated key),
/// one fetch per key id however many requests wait for it, and a flood of
/// made-up key ids held to the fetcher's bounds (16 at once, a budget per
/// host and per address, 64 KiB a document, the time limit, no private
/// address unless allowed). The server's request log is the count of
/// fetches: what a hostile sender makes blogd do.
@Suite struct InboxVerifierTests {
    typealias Fixture = KeyServerFixture

    // MARK: - The cache

    @Test func aKeyIsFetchedOnceAndKept() async throws {
        let f = try await Fixture.start()
        defer { Task { try? await f.close() } }
        f.serve("bob", key: Fixture.bob)
        let first: VerifiedSigner = try await f.verify(f.request(keyID: f.keyID("bob"))).get()
        #expect(first.actorID == f.actorURL("bob"))
        #expect(first.keyID == f.keyID("bob"))
        let second: VerifiedSigner = try await f.verify(f.request(keyID: f.keyID("bob"))).get()
        #expect(second == first)
        #expect(f.fetches("bob") == 1)
        // The GET asks for ActivityPub JSON, and for the document without the fragment.
        let get = try #require(f.server.seen.first)
        #expect(get.method == "GET")
        #expect(get.path == "/users/bob")
        #expect(get.header("accept") == KeyFetcher.accept)
    }

    @Test func aKeptKeyIsFetchedAgainAfterAnHour() async throws {
        let f = try await Fixture.start()
        defer { Task { try? await f.close() } }
        f.serve("bob", key: Fixture.bob)
        _ = try await f.verify(f.request(keyID: f.keyID("bob"))).get()
        f.clock.advance(by: 3599)
        _ = try await f.verify(f.request(keyID: f.keyID("bob"))).get()
        #expect(f.fetches("bob") == 1)
        f.clock.advance(by: 2)
        _ = try await f.verify(f.request(keyID: f.keyID("bob"))).get()
        #expect(f.fetches("bob") == 2)
    }

    @Test func aRotatedKeyIsFetchedAgainAfterAFailedVerify() async throws {
        let f = try await Fixture.start()
        defer { Task { try? await f.close() } }
        f.serve("bob", key: Fixture.bob)
        _ = try await f.verify(f.request(keyID: f.keyID("bob"))).get()
        // Bob's server now has a new key, and signs with it.
        f.serve("bob", key: Fixture.rotated)
        f.clock.advance(by: 61)
        let rotated: VerifiedSigner = try await f.verify(f.request(keyID: f.keyID("bob"), key: Fixture.rotated)).get()
        #expect(rotated.actorID == f.actorURL("bob"))
        #expect(f.fetches("bob") == 2)
        // The new key is kept: the next request costs nothing.
        _ = try await f.verify(f.request(keyID: f.keyID("bob"), key: Fixture.rotated)).get()
        #expect(f.fetches("bob") == 2)
    }

    @Test func aFailedVerifyRefetchesAtMostOnceAMinute() async throws {
        let f = try await Fixture.start()
        defer { Task { try? await f.close() } }
        f.serve("bob", key: Fixture.bob)
        _ = try await f.verify(f.request(keyID: f.keyID("bob"))).get()
        // Signed with a key the document does not hold, again and again:
        // the kept key is younger than a minute, so nothing is fetched.
        for _ in 0..<5 {
            let outcome = await f.verify(try f.request(keyID: f.keyID("bob"), key: Fixture.rotated))
            #expect(outcome.refusal == .signature(.badSignature))
        }
        #expect(f.fetches("bob") == 1)
        // A minute on, one refetch; the key still fails; the new copy is young again.
        f.clock.advance(by: 61)
        for _ in 0..<5 {
            let outcome = await f.verify(try f.request(keyID: f.keyID("bob"), key: Fixture.rotated))
            #expect(outcome.refusal == .signature(.badSignature))
        }
        #expect(f.fetches("bob") == 2)
    }

    // MARK: - One fetch per key id

    @Test func requestsForOneKeyShareOneFetch() async throws {
        let f = try await Fixture.start()
        defer { Task { try? await f.close() } }
        f.serve("bob", key: Fixture.bob)
        f.gate.close()
        let request = try f.request(keyID: f.keyID("bob"))
        var batch: [(SignedRequest, String)] = []
        for index in 1...50 { batch.append((request, "198.51.100.\(index)")) }
        let waiting = Task { await f.verifyTogether(batch) }
        await f.gate.waitForHeld(1)
        let allWaiting = await Fixture.eventually { f.keys.waitingCount == 50 }
        #expect(allWaiting)
        #expect(f.gate.heldCount == 1)
        f.gate.open()
        let outcomes = await waiting.value
        let verified = outcomes.filter { $0.refusal == nil }.count
        #expect(verified == 50)
        #expect(f.fetches("bob") == 1)
        #expect(f.keys.waitingCount == 0)
    }

    @Test func waitersPastTheBoundAreToldToComeBack() async throws {
        let f = try await Fixture.start()
        defer { Task { try? await f.close() } }
        f.serve("bob", key: Fixture.bob)
        f.gate.close()
        let request = try f.request(keyID: f.keyID("bob"))
        var batch: [(SignedRequest, String)] = []
        for index in 1...300 { batch.append((request, "198.51.100.\(index % 200)")) }
        let waiting = Task { await f.verifyTogether(batch) }
        await f.gate.waitForHeld(1)
        let full = await Fixture.eventually { f.keys.waitingCount == 256 }
        #expect(full)
        f.gate.open()
        let outcomes = await waiting.value
        let busy = outcomes.filter { $0.refusal == .key(.busy) }.count
        let verified = outcomes.filter { $0.refusal == nil }.count
        #expect(busy == 44)
        #expect(verified == 256)
        #expect(f.fetches("bob") == 1)
    }
}
