import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// RFC 9421 signatures made by an independent implementation, the PyPI
/// library http-message-signatures (3.x, run by `BLOGD_PYTHON`), verified
/// by ours: both algorithms; and the refusals: a body changed after
/// signing, a digest of another body, a stale `created`, a signature that
/// leaves out `content-digest` or `@method`.
@Suite("RFC 9421 interop (http-message-signatures)")
struct MessageSignatureInteropTests {
    static func python() throws -> String? {
        let python = ProcessInfo.processInfo.environment["BLOGD_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin/python3"
        if (try? tool(python, ["-c", "import http_message_signatures, requests"]).status) == 0 { return python }
        try #require(ProcessInfo.processInfo.environment["BLOGD_REQUIRE_PY_TOOLS"] != "1",
                     "http-message-signatures is missing for \(python): pip install http-message-signatures requests")
        print("skipped: http-message-signatures is missing for \(python) (set BLOGD_PYTHON to a Python with it)")
        return nil
    }

    static let script = #"""
    sys, json, datetime, warnings = (__import__(name) for name in ("sys", "json", "datetime", "warnings"))
    warnings.simplefilter("ignore")
    requests = __import__("requests")
    from http_message_signatures import HTTPMessageSigner, HTTPSignatureKeyResolver, algorithms
    args = json.load(open(sys.argv[1]))
    class Keys(HTTPSignatureKeyResolver):
        def resolve_private_key(self, key_id):
            return args["private"].encode()
    algorithm = {"rsa-v1_5-sha256": algorithms.RSA_V1_5_SHA256, "rsa-pss-sha512": algorithms.RSA_PSS_SHA512}[args["alg"]]
    body = args["body"].encode()
    request = requests.Request("POST", args["url"], data=body,
                               headers={"Content-Type": "application/activity+json"}).prepare()
    signer = HTTPMessageSigner(signature_algorithm=algorithm, key_resolver=Keys())
    created = datetime.datetime.fromtimestamp(args["created"], datetime.timezone.utc)
    signer.sign(request, key_id=args["keyid"], created=created, covered_component_ids=tuple(args["components"]),
                body=body if args["digest"] else None)
    print(json.dumps(list(request.headers.items())))
    """#

    /// The library's verdict on a request we signed: "ok", or its error.
    static let verifyScript = #"""
    sys, json, warnings = (__import__(name) for name in ("sys", "json", "warnings"))
    warnings.simplefilter("ignore")
    requests = __import__("requests")
    from http_message_signatures import HTTPMessageVerifier, HTTPSignatureKeyResolver, algorithms
    args = json.load(open(sys.argv[1]))
    class Keys(HTTPSignatureKeyResolver):
        def resolve_public_key(self, key_id):
            return args["public"].encode()
    algorithm = {"rsa-v1_5-sha256": algorithms.RSA_V1_5_SHA256, "rsa-pss-sha512": algorithms.RSA_PSS_SHA512}[args["alg"]]
    body = args["body"].encode()
    request = requests.Request("POST", args["url"], data=body, headers=dict(args["headers"])).prepare()
    try:
        results = HTTPMessageVerifier(signature_algorithm=algorithm, key_resolver=Keys()).verify(request, body=body)
        print(json.dumps("ok" if results and results[0].body == body else "no body"))
    except Exception as error:
        print(json.dumps(type(error).__name__))
    """#

    /// What the library says of `headers` on `body`, under `key`.
    static func theirVerdict(_ python: String, headers: [(String, String)], body: [UInt8], algorithm: String,
                             key: ActorKeyPair = TestKeys.alice) throws -> String {
        let args: [String: Any] = ["public": key.publicKeyPEM, "alg": algorithm, "body": String(decoding: body, as: UTF8.self),
                                   "url": "https://blog.example/ap/alice/inbox", "headers": headers.map { [$0.0, $0.1] }]
        let output: String = try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("args.json")
            try JSONSerialization.data(withJSONObject: args).write(to: file)
            let (status, output) = try tool(python, ["-c", verifyScript, file.path])
            try #require(status == 0, "the verifier exited \(status): \(output)")
            return output
        }
        return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8), options: .fragmentsAllowed) as? String)
    }

    @Test(arguments: ["rsa-v1_5-sha256", "rsa-pss-sha512"])
    func weSignTheyVerify(_ algorithm: String) throws {
        guard let python = try Self.python() else { return }
        let headers = try MessageSignatureSigner.sign(method: "POST", url: "https://blog.example/ap/alice/inbox",
                                                      body: TestKeys.body, keyID: TestKeys.keyID,
                                                      privateKey: TestKeys.alice.privateKey, now: Date(), algorithm: algorithm)
        #expect(try Self.theirVerdict(python, headers: headers, body: TestKeys.body, algorithm: algorithm) == "ok")
        var changed = TestKeys.body
        changed[10] ^= 0x20
        #expect(try Self.theirVerdict(python, headers: headers, body: changed, algorithm: algorithm) != "ok")
        let wrongKey = try Self.theirVerdict(python, headers: headers, body: TestKeys.body, algorithm: algorithm,
                                             key: TestKeys.mallory)
        #expect(wrongKey != "ok")
    }

    /// A POST to alice's inbox signed by the library, as our inbox reads it.
    static func theirs(_ python: String, algorithm: String = "rsa-v1_5-sha256", created: Date = TestKeys.now,
                       components: [String] = ["@method", "@target-uri"], digest: Bool = true) throws -> SignedRequest {
        let body = String(decoding: TestKeys.body, as: UTF8.self)
        let args: [String: Any] = ["private": TestKeys.alice.privateKeyPEM, "alg": algorithm, "body": body,
                                   "url": "https://blog.example/ap/alice/inbox", "keyid": TestKeys.keyID,
                                   "created": Int(created.timeIntervalSince1970), "components": components,
                                   "digest": digest]
        let output: String = try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("args.json")
            try JSONSerialization.data(withJSONObject: args).write(to: file)
            let (status, output) = try tool(python, ["-c", script, file.path])
            try #require(status == 0, "the signer exited \(status): \(output)")
            return output
        }
        let pairs = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String]])
        // The HTTP client adds Host when it sends; the inbox reads it.
        let headers: [(String, String)] = [("Host", "blog.example")] + pairs.map { ($0[0], $0[1]) }
        return SignedRequest(method: "POST", path: "/ap/alice/inbox", headers: headers, body: TestKeys.body)
    }

    static func check(_ request: SignedRequest) throws -> MessageSignature {
        try MessageSignatureVerifier().verify(request, key: TestKeys.alice.publicKey, now: TestKeys.now)
    }

    @Test(arguments: ["rsa-v1_5-sha256", "rsa-pss-sha512"])
    func theySignWeVerify(_ algorithm: String) throws {
        guard let python = try Self.python() else { return }
        let request = try Self.theirs(python, algorithm: algorithm)
        let signature = try Self.check(request)
        #expect(signature.keyID == TestKeys.keyID)
        #expect(signature.algorithm == algorithm)
        #expect(signature.components.contains("content-digest"))
        #expect(throws: SignatureError.badSignature) {
            _ = try MessageSignatureVerifier().verify(request, key: TestKeys.mallory.publicKey, now: TestKeys.now)
        }
        // Through the inbox's entry point, the same.
        let found = try RequestSignature.find(in: request.headers)
        #expect(found.keyID == TestKeys.keyID)
    }

    @Test func aTamperedBodyIsRefused() throws {
        guard let python = try Self.python() else { return }
        var request = try Self.theirs(python)
        request.body[10] ^= 0x20
        #expect(throws: SignatureError.digestMismatch) { _ = try Self.check(request) }
    }

    @Test func aWrongDigestIsRefused() throws {
        guard let python = try Self.python() else { return }
        let other: [UInt8] = Array("{\"type\":\"Undo\"}".utf8)
        let request = try Self.theirs(python).setting("Content-Digest", ContentDigestHeader.make(for: other))
        #expect(throws: SignatureError.digestMismatch) { _ = try Self.check(request) }
    }

    @Test func aStaleCreatedIsRefused() throws {
        guard let python = try Self.python() else { return }
        let request = try Self.theirs(python, created: TestKeys.now.addingTimeInterval(-600))
        #expect(throws: SignatureError.dateOutOfWindow) { _ = try Self.check(request) }
    }

    @Test func aMissingComponentIsRefused() throws {
        guard let python = try Self.python() else { return }
        let noDigest = try Self.theirs(python, digest: false)
        #expect(throws: SignatureError.headerNotSigned("content-digest")) { _ = try Self.check(noDigest) }
        let noMethod = try Self.theirs(python, components: ["@target-uri"])
        #expect(throws: SignatureError.headerNotSigned("@method")) { _ = try Self.check(noMethod) }
    }
}
