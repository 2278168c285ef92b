import BlogCore
import BlogModel
import BlogSignatures
import BlogSQLite
import BlogTestSupport
import BlogWeb
import Foundation
import HTTPTypes
import Synchronization
import Testing
import BlogApp
@testable import blogd

/// blogd's inbox signature check as wired (`VerifiedInboxSignatures` over
/// `InboxVerifier` and a `KeyFetcher` on `BlogSignedHTTP`, in the inbox's
/// `SigningActor` scope) with a stub network and a real SQLite store for
/// the blog's key: the key fetched by a GET signed as the blog posted to,
/// the follower's actor read the same way, and the refusals a hostile
/// sender can aim at: no signature, a stale date, a body that does not
/// match its digest, a key owned by another host, the wrong key, a host
/// over its budget. The cheap refusals fetch nothing.
@Suite struct InboxSigningTests {
    static let bob = try! ActorKeyPair.generate()
    static let base = "http://blog.test/"
    static let actor = "http://social.test/users/bob"

    /// Answers every GET with `document`, and keeps the requests.
    final class Network: StubHTTP {
        let gets = Mutex<[(url: String, headers: [(String, String)])]>([])
        let document: [UInt8]

        init(document: [String: Any]) {
            self.document = Array(try! JSONSerialization.data(withJSONObject: document))
        }

        var count: Int { gets.withLock { $0.count } }

        func get(_ url: String, headers: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
            gets.withLock { $0.append((url, headers)) }
            return HTTPAnswer(url: url, status: 200, headers: ["content-type": "application/activity+json"], body: document)
        }
    }

    static func actorDocument(owner: String = actor, pem: String = bob.publicKeyPEM) -> [String: Any] {
        ["id": actor, "type": "Person", "inbox": actor + "/inbox",
         "publicKey": ["id": actor + "#main-key", "owner": owner, "publicKeyPem": pem]]
    }

    struct Fixture {
        let folder: URL
        let store: SQLiteStore
        let keys: BlogKeys
        let instance: InstanceActorKey
        let network: Network
        let signatures: VerifiedInboxSignatures
        let profiles: SignedActorProfiles

        init(document: [String: Any] = InboxSigningTests.actorDocument(), burst: Double = 30) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-iks-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            _ = try store.createUser(name: "alice", passwordHash: "x", at: Date())
            keys = BlogKeys(storage: store)
            instance = InstanceActorKey(storage: store)
            network = Network(document: document)
            let signed = BlogSignedHTTP(base: network, keys: keys, instance: instance, urls: .init(base: InboxSigningTests.base))
            let fetcher = KeyFetcher(http: signed, limits: KeyFetchLimits(perHostRate: 0.0001, perHostBurst: burst))
            signatures = VerifiedInboxSignatures(verifier: InboxVerifier(keys: fetcher), waitSeconds: 600)
            profiles = SignedActorProfiles(http: signed, waitSeconds: 600)
        }

        /// A Follow POSTed to alice's inbox, signed by `key` at `date`, the
        /// headers changed by `edit` after signing.
        func request(key: ActorKeyPair = InboxSigningTests.bob, keyID: String = InboxSigningTests.actor + "#main-key",
                     date: Date = Date(), body: String = "{\"type\":\"Follow\"}",
                     edit: (inout [(String, String)]) -> Void = { _ in }) throws -> WebRequest {
            var signed = try HTTPSignatureSigner.sign(method: "POST", url: "http://blog.test/ap/alice/inbox", body: Array(body.utf8),
                                                      keyID: keyID,
                                                      privateKey: key.privateKey, now: date)
            edit(&signed)
            var fields = HTTPFields()
            for (name, value) in signed { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
            return WebRequest(method: .post, path: "/ap/alice/inbox", headers: fields, body: Array(body.utf8))
        }

        /// The check as alice's inbox makes it (or `as` another signer: the shared inbox's).
        func check(_ request: WebRequest, as signer: SigningActor = .blog("alice")) -> Result<InboxSigner, InboxSignatureRefusal> {
            SigningActor.$current.withValue(signer) { signatures.signer(of: request) }
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func theSharedInboxSignsAsTheSite() {
        #expect(InboxSigningScope.signer(ofInboxPath: "/ap/alice/inbox") == .blog("alice"))
        #expect(InboxSigningScope.signer(ofInboxPath: "/ap/inbox") == .instance)
        #expect(InboxSigningScope.signer(ofInboxPath: "/ap/alice/outbox") == nil)
        #expect(InboxSigningScope.signer(ofInboxPath: "/ap//inbox") == nil)
        #expect(InboxSigningScope.signer(ofInboxPath: "/inbox") == nil)
    }

    /// At the shared inbox no blog asks: the key is fetched by a GET signed
    /// with the site's own key (`BASE ap#main-key`), made once and stored.
    @Test func theSharedInboxFetchesKeysSignedAsTheSite() throws {
        let f = try Fixture()
        defer { f.remove() }
        let signer = try f.check(f.request(), as: .instance).get()
        #expect(signer == InboxSigner(actor: Self.actor))
        let get = try #require(f.network.gets.withLock { $0.first })
        let signature = try SignatureHeader.find(in: get.headers)
        #expect(signature.keyID == "http://blog.test/ap#main-key")
        #expect(signature.headers == ["(request-target)", "host", "date"])
        let stored = try #require(try f.store.instanceKeyPEM())
        let key = try ActorKeyPair(privateKeyPEM: stored).publicKey
        let request = SignedRequest(method: "GET", path: "/users/bob", headers: get.headers)
        try HTTPSignatureVerifier().verify(request, signature, key: key)
        // No blog's key was made for it.
        #expect(try f.store.actorKey(ofUserID: 1) == nil)
        #expect(try f.instance.publicKeyPEM() == ActorKeyPair(privateKeyPEM: stored).publicKeyPEM)
    }

    @Test func aSignedFollowIsVerifiedWithAKeyFetchedBySignedGet() throws {
        let f = try Fixture()
        defer { f.remove() }
        let signer = try f.check(f.request()).get()
        #expect(signer == InboxSigner(actor: Self.actor))
        // The follower's inbox, read the same way (a Follow asks for it).
        let profile = SigningActor.$current.withValue(.blog("alice")) { f.profiles.profile(of: Self.actor) }
        #expect(profile?.inbox == Self.actor + "/inbox")
        #expect(f.network.gets.withLock { $0.allSatisfy { get in get.headers.contains { $0.0 == "Signature" } } })
        let get = try #require(f.network.gets.withLock { $0.first })
        #expect(get.url == Self.actor, "the key id's fragment is dropped")
        // The GET is signed as alice, with her stored key.
        let stored = try #require(try f.store.actorKey(ofUserID: 1))
        let request = SignedRequest(method: "GET", path: "/users/bob", headers: get.headers)
        let signature = try SignatureHeader.find(in: get.headers)
        #expect(signature.keyID == "http://blog.test/ap/alice#main-key")
        #expect(signature.headers == ["(request-target)", "host", "date"])
        try HTTPSignatureVerifier().verify(request, signature, key: try ActorKeyPair.publicKey(pem: stored.publicPEM))
    }

    @Test func cheapRefusalsFetchNothing() throws {
        let f = try Fixture()
        defer { f.remove() }
        let unsigned = try f.request { $0.removeAll { $0.0 == "Signature" } }
        let stale = try f.request(date: Date().addingTimeInterval(-600))
        let tampered = WebRequest(method: .post, path: "/ap/alice/inbox", headers: try f.request().headers,
                                  body: Array("{\"type\":\"Undo\"}".utf8))
        for request in [unsigned, stale, tampered] {
            guard case .failure(let refusal) = f.check(request) else {
                Issue.record("accepted")
                continue
            }
            #expect(!refusal.isTemporary)
        }
        #expect(f.network.count == 0)
    }

    @Test func aKeyOfAnotherHostOrTheWrongKeyIsRefused() throws {
        let elsewhere = try Fixture(document: Self.actorDocument(owner: "http://evil.test/users/bob"))
        defer { elsewhere.remove() }
        #expect(throws: InboxSignatureRefusal.self) { try elsewhere.check(elsewhere.request()).get() }
        let wrong = try Fixture()
        defer { wrong.remove() }
        let other = try ActorKeyPair.generate()
        #expect(throws: InboxSignatureRefusal.self) { try wrong.check(wrong.request(key: other)).get() }
    }

    @Test func aHostOverItsBudgetIsToldToComeBack() throws {
        let f = try Fixture(burst: 1)
        defer { f.remove() }
        // A key id the document does not hold spends the host's one fetch.
        #expect(throws: InboxSignatureRefusal.self) { try f.check(f.request(keyID: Self.actor + "#other-key")).get() }
        guard case .failure(let refusal) = f.check(try f.request()) else {
            Issue.record("a second fetch within the budget")
            return
        }
        #expect(refusal.isTemporary)
        #expect(f.network.count == 1)
    }
}
