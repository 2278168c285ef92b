import BlogCore
import BlogFetch
import BlogSignatures
import BlogTestSupport
import Foundation
import Synchronization
import Testing

/// An `OutgoingHTTP` that holds every GET at a gate the test opens: the
/// key fetches under way stay under way while the test looks.
final class GatedHTTP: StubHTTP {
    private struct State {
        var open = true
        var held: [CheckedContinuation<Void, Never>] = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let base: any OutgoingHTTP
    private let state = Mutex(State())

    init(base: any OutgoingHTTP) {
        self.base = base
    }

    /// GETs wait from now on, until `open()`.
    func close() {
        state.withLock { $0.open = false }
    }

    /// Lets every held GET and every later one through.
    func open() {
        let held = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    var heldCount: Int { state.withLock { $0.held.count } }

    /// Returns once `count` GETs are held at the gate.
    func waitForHeld(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.held.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func get(_ url: String, headers: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (pass, ready) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                if state.open { return (true, []) }
                state.held.append(continuation)
                let count = state.held.count
                let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
                state.watchers.removeAll { $0.count <= count }
                return (false, ready)
            }
            for watcher in ready { watcher.resume() }
            if pass { continuation.resume() }
        }
        return try await base.get(url, headers: headers, maxBytes: maxBytes)
    }
}

/// A key server on loopback (port 0) serving actors' documents, and the
/// inbox's verifier in front of it: `InboxVerifier` over `KeyFetcher`
/// over the bounded fetcher (`FetcherHTTP`), on one test clock.
struct KeyServerFixture {
    static let bob: ActorKeyPair = try! ActorKeyPair.generate()
    static let rotated: ActorKeyPair = try! ActorKeyPair.generate()
    static let inboxURL = "http://blog.test/ap/alice/inbox"
    static let body: [UInt8] = Array(#"{"type":"Follow"}"#.utf8)

    let server: LoopbackHTTPServer
    let clock: TestClock
    let gate: GatedHTTP
    let keys: KeyFetcher
    let verifier: InboxVerifier

    /// `allowPrivate` false: the fetcher may not reach loopback, as in production.
    static func start(limits: KeyFetchLimits = KeyFetchLimits(), allowPrivate: Bool = true,
                      expiry: ExpiryGate? = nil) async throws -> KeyServerFixture {
        let server = try await LoopbackHTTPServer.start()
        let clock = TestClock()
        // Room for the fetcher's own per-host bound not to hide the key fetcher's.
        let settings = FetchSettings(timeLimit: .seconds(600), concurrency: 64, perHostConcurrency: 64,
                                     allowPrivateAddresses: allowPrivate)
        let fetcher: OutgoingFetcher
        if let expiry {
            fetcher = OutgoingFetcher(settings: settings, expiry: expiry.wait)
        } else {
            fetcher = OutgoingFetcher(settings: settings)
        }
        let gate = GatedHTTP(base: FetcherHTTP(fetcher))
        let keys = KeyFetcher(http: gate, limits: limits, now: clock.closure)
        let verifier = InboxVerifier(keys: keys, now: clock.closure)
        return KeyServerFixture(server: server, clock: clock, gate: gate, keys: keys, verifier: verifier)
    }

    func close() async throws {
        gate.open()
        try await server.close()
    }

    func actorPath(_ name: String) -> String { "/users/" + name }
    func actorURL(_ name: String) -> String { server.url(actorPath(name)) }
    func keyID(_ name: String) -> String { actorURL(name) + "#main-key" }

    /// The actor document of `name` with `key`, and `padding` bytes of summary.
    func document(_ name: String, key: ActorKeyPair, padding: Int = 0) -> [UInt8] {
        let id = actorURL(name)
        let publicKey: [String: Any] = ["id": keyID(name), "owner": id, "publicKeyPem": key.publicKeyPEM]
        let actor: [String: Any] = ["id": id, "type": "Person", "inbox": id + "/inbox",
                                    "summary": String(repeating: "x", count: padding), "publicKey": publicKey]
        return Array(try! JSONSerialization.data(withJSONObject: actor))
    }

    /// From now on the server answers `name`'s document with `key`.
    func serve(_ name: String, key: ActorKeyPair, padding: Int = 0) {
        let headers: [(String, String)] = [("Content-Type", "application/activity+json")]
        server.set(actorPath(name), .page(status: 200, headers: headers, body: document(name, key: key, padding: padding)))
    }

    /// GETs the server has read for `name`'s document.
    func fetches(_ name: String) -> Int {
        server.seen.filter { $0.path == actorPath(name) }.count
    }

    /// A Follow POSTed to alice's inbox, signed with `key` as `keyID` now.
    func request(keyID: String, key: ActorKeyPair = KeyServerFixture.bob) throws -> SignedRequest {
        let headers = try HTTPSignatureSigner.sign(method: "POST", url: Self.inboxURL, body: Self.body, keyID: keyID,
                                                   privateKey: key.privateKey, now: clock.now)
        return SignedRequest(method: "POST", path: "/ap/alice/inbox", headers: headers, body: Self.body)
    }

    /// `request` under another key id: the signature no longer verifies,
    /// but everything checked before the key is fetched still holds. Cheap:
    /// a flood needs no RSA signing per request.
    static func renamed(_ request: SignedRequest, keyID: String) throws -> SignedRequest {
        var signature = try SignatureHeader.find(in: request.headers)
        signature.keyID = keyID
        var copy = request
        copy.headers.removeAll { $0.0.lowercased() == "signature" }
        copy.headers.append(("Signature", signature.value))
        return copy
    }

    func verify(_ request: SignedRequest, from address: String = "192.0.2.1") async -> Result<VerifiedSigner, InboxVerificationError> {
        do {
            return .success(try await verifier.verify(request, peerAddress: address))
        } catch {
            return .failure(error)
        }
    }

    /// Verifies each request from its address, all at once; the outcomes
    /// in the order they finish.
    func verifyTogether(_ requests: [(SignedRequest, String)]) async -> [Result<VerifiedSigner, InboxVerificationError>] {
        await withTaskGroup(of: Result<VerifiedSigner, InboxVerificationError>.self) { group in
            for (request, address) in requests {
                group.addTask { await self.verify(request, from: address) }
            }
            var outcomes: [Result<VerifiedSigner, InboxVerificationError>] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
    }

    /// Polls `condition` (a count another task moves) until it holds; the
    /// bound only ends a broken test.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<60_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}

extension Result where Failure == InboxVerificationError {
    /// The refusal, nil for a success.
    var refusal: InboxVerificationError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
