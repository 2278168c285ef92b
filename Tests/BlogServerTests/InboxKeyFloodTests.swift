import BlogCore
import BlogFetch
import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// What a flood of signed requests naming made-up key ids makes blogd
/// fetch: never more than the key fetcher's bounds (`KeyFetchLimits`),
/// counted at a real key server on loopback. Also the fetch's own bounds:
/// a document over 64 KiB, a server that never answers, a private address.
@Suite struct InboxKeyFloodTests {
    typealias Fixture = KeyServerFixture

    /// `count` requests for distinct unknown key ids on the key server,
    /// from `addresses` addresses in turn (IPv4, one each).
    static func flood(_ f: Fixture, count: Int, addresses: Int, prefix: String = "u") throws -> [(SignedRequest, String)] {
        let template = try f.request(keyID: f.keyID("template"))
        var requests: [(SignedRequest, String)] = []
        requests.reserveCapacity(count)
        for index in 0..<count {
            let request = try Fixture.renamed(template, keyID: f.keyID("\(prefix)\(index)"))
            let address = "203.0.113.\(index % addresses + 1)"
            requests.append((request, address))
        }
        return requests
    }

    static func count(_ outcomes: [Result<VerifiedSigner, InboxVerificationError>],
                      _ match: (InboxVerificationError) -> Bool) -> Int {
        var found = 0
        for outcome in outcomes {
            if let refusal = outcome.refusal, match(refusal) { found += 1 }
        }
        return found
    }

    static func isBusy(_ error: InboxVerificationError) -> Bool { error == .key(.busy) }

    static func isOverBudget(_ error: InboxVerificationError) -> Bool {
        if case .key(.overBudget) = error { return true }
        return false
    }

    static func isNotFound(_ error: InboxVerificationError) -> Bool { error == .key(.status(404)) }

    // MARK: - At once

    @Test func atMostSixteenKeyIDsAreFetchedAtOnce() async throws {
        let limits = KeyFetchLimits(perHostBurst: 10_000, perAddressBurst: 10_000)
        let f = try await Fixture.start(limits: limits)
        defer { Task { try? await f.close() } }
        f.gate.close()
        let requests = try Self.flood(f, count: 100, addresses: 100)
        let flood = Task { await f.verifyTogether(requests) }
        await f.gate.waitForHeld(16)
        // Sixteen are under way, held; every other one was refused at once.
        let refused = await Fixture.eventually { f.keys.fetchCount == 16 && f.keys.waitingCount == 16 }
        #expect(refused)
        #expect(f.server.seen.isEmpty)
        f.gate.open()
        let outcomes = await flood.value
        #expect(Self.count(outcomes, Self.isBusy) == 84)
        #expect(Self.count(outcomes, Self.isNotFound) == 16)
        #expect(f.server.seen.count == 16)
        #expect(f.keys.fetchCount == 16)
    }

    @Test func aThousandUnknownKeyIDsOnOneHostMakeTheHostsBurst() async throws {
        let f = try await Fixture.start()
        defer { Task { try? await f.close() } }
        // 1,000 key ids from 100 addresses, all at once: at most the host's
        // burst of 20 fetches, whatever the order.
        let requests = try Self.flood(f, count: 1000, addresses: 100)
        let outcomes = await f.verifyTogether(requests)
        let fetched = f.keys.fetchCount
        #expect(fetched <= 20)
        #expect(f.server.seen.count == fetched)
        #expect(Self.count(outcomes, Self.isNotFound) == fetched)
        let refused = Self.count(outcomes, Self.isBusy) + Self.count(outcomes, Self.isOverBudget)
        #expect(refused == 1000 - fetched)
        // The same again, one by one: the burst is spent to exactly 20.
        for (request, address) in requests { _ = await f.verify(request, from: address) }
        #expect(f.keys.fetchCount == 20)
        #expect(f.server.seen.count == 20)
        // Then one fetch every 2 seconds.
        f.clock.advance(by: 2)
        for (request, address) in requests.prefix(50) { _ = await f.verify(request, from: address) }
        #expect(f.server.seen.count == 21)
    }

    @Test func oneAddressSpendsOnlyItsOwnBudget() async throws {
        let f = try await Fixture.start(limits: KeyFetchLimits(perHostBurst: 10_000))
        defer { Task { try? await f.close() } }
        let requests = try Self.flood(f, count: 40, addresses: 1)
        var outcomes: [Result<VerifiedSigner, InboxVerificationError>] = []
        for (request, address) in requests { outcomes.append(await f.verify(request, from: address)) }
        #expect(Self.count(outcomes, Self.isNotFound) == 30)
        let overBudget = Self.count(outcomes) { $0 == .key(.overBudget("the address 203.0.113.1")) }
        #expect(overBudget == 10)
        #expect(f.server.seen.count == 30)
        // Another address is not held back by it.
        let other = await f.verify(requests[39].0, from: "203.0.113.2")
        #expect(other.refusal == .key(.status(404)))
        #expect(f.server.seen.count == 31)
    }

    @Test func addressesOfOneIPv6NetworkShareOneBudget() async throws {
        let f = try await Fixture.start(limits: KeyFetchLimits(perHostBurst: 10_000))
        defer { Task { try? await f.close() } }
        let requests = try Self.flood(f, count: 40, addresses: 1)
        // A new address of the same /64 for every request.
        for (index, (request, _)) in requests.enumerated() {
            _ = await f.verify(request, from: "2001:db8:0:1::\(index + 1)")
        }
        #expect(f.server.seen.count == 30)
        let elsewhere = await f.verify(requests[0].0, from: "2001:db8:0:2::1")
        #expect(elsewhere.refusal == .key(.status(404)))
        #expect(f.server.seen.count == 31)
    }

    @Test func aKeyIDThatIsNoHTTPURLCostsNothing() async throws {
        let f = try await Fixture.start()
        defer { Task { try? await f.close() } }
        let template = try f.request(keyID: f.keyID("bob"))
        for keyID in ["acct:bob@social.test", "ftp://social.test/bob", "bob", "http:///nohost#k"] {
            let outcome = await f.verify(try Fixture.renamed(template, keyID: keyID))
            #expect(outcome.refusal == .key(.badKeyID(keyID)))
        }
        #expect(f.keys.fetchCount == 0)
    }

    // MARK: - One fetch's bounds

    @Test func aKeyDocumentOver64KiBIsRefused() async throws {
        let f = try await Fixture.start()
        defer { Task { try? await f.close() } }
        let bare = f.document("big", key: Fixture.bob).count
        let padding = 64 * 1024 - bare
        f.serve("big", key: Fixture.bob, padding: padding + 1)
        let tooBig = await f.verify(try f.request(keyID: f.keyID("big")))
        guard case .key(.fetch(.refused)) = tooBig.refusal else {
            Issue.record("a document of 64 KiB and 1 byte: \(String(describing: tooBig.refusal))")
            return
        }
        // Exactly 64 KiB is read (the refusal kept nothing: it is fetched again).
        f.serve("big", key: Fixture.bob, padding: padding)
        #expect(f.document("big", key: Fixture.bob, padding: padding).count == 64 * 1024)
        let fits: VerifiedSigner = try await f.verify(f.request(keyID: f.keyID("big"))).get()
        #expect(fits.actorID == f.actorURL("big"))
        #expect(f.fetches("big") == 2)
    }

    @Test func aKeyServerThatNeverAnswersIsCutOff() async throws {
        let expiry = ExpiryGate()
        let f = try await Fixture.start(expiry: expiry)
        defer { Task { try? await f.close() } }
        f.server.set(f.actorPath("slow"), .silence)
        let request = try f.request(keyID: f.keyID("slow"))
        let pending = Task { await f.verify(request) }
        await f.server.waitForRequests(1)
        #expect(f.keys.waitingCount == 1)
        expiry.expire()
        let outcome = await pending.value
        guard case .key(.fetch(.failed)) = outcome.refusal else {
            Issue.record("a silent server: \(String(describing: outcome.refusal))")
            return
        }
        // Nothing is left waiting, and nothing was kept: the next request fetches again.
        #expect(f.keys.waitingCount == 0)
        #expect(f.keys.fetchCount == 1)
        _ = await f.verify(request)
        #expect(f.keys.fetchCount == 2)
    }

    @Test func aPrivateAddressIsRefusedUnlessAllowed() async throws {
        let f = try await Fixture.start(allowPrivate: false)
        defer { Task { try? await f.close() } }
        f.serve("bob", key: Fixture.bob)
        let outcome = await f.verify(try f.request(keyID: f.keyID("bob")))
        guard case .key(.fetch(.refused)) = outcome.refusal else {
            Issue.record("a loopback key server: \(String(describing: outcome.refusal))")
            return
        }
        #expect(f.server.seen.isEmpty)
    }
}
