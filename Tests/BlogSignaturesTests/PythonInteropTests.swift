import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// Our signatures against independent implementations from PyPI, run by
/// the interpreter `BLOGD_PYTHON` names: httpsig (`HeaderSigner`,
/// `HeaderVerifier`) and bovine (`HttpSignature`, the helper its signed
/// POSTs use). They sign, we verify; we sign, they verify.
@Suite("HTTP signature interop (httpsig, bovine)")
struct PythonInteropTests {
    /// The interpreter with httpsig and bovine, or nil (one line said)
    /// when they are missing and not required (`BLOGD_REQUIRE_PY_TOOLS=1`
    /// fails instead).
    static func python() throws -> String? {
        let python = ProcessInfo.processInfo.environment["BLOGD_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin/python3"
        if (try? tool(python, ["-c", "import httpsig, bovine.crypto"]).status) == 0 { return python }
        try #require(ProcessInfo.processInfo.environment["BLOGD_REQUIRE_PY_TOOLS"] != "1",
                     "httpsig or bovine is missing for \(python): pip install httpsig bovine (and set BLOGD_PYTHON)")
        print("skipped: httpsig or bovine is missing for \(python) (set BLOGD_PYTHON to a Python with them)")
        return nil
    }

    static let script = #"""
    warnings = __import__("warnings"); import sys, json, base64, hashlib
    warnings.simplefilter("ignore")
    mode, folder = sys.argv[1], sys.argv[2]
    read = lambda name: open(folder + "/" + name, "rb").read()
    args = json.loads(read("args.json"))
    body = read("body")
    if mode == "httpsig-sign":
        from httpsig.sign import HeaderSigner
        digest = "SHA-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode()
        headers = {"Host": args["host"], "Date": args["date"], "Digest": digest,
                   "Content-Type": "application/activity+json"}
        signer = HeaderSigner(args["keyId"], read("private.pem").decode(), algorithm="rsa-sha256",
                              headers=["(request-target)", "host", "date", "digest", "content-type"],
                              sign_header="signature")
        print(json.dumps(list(signer.sign(headers, method="POST", path=args["path"]).items())))
    elif mode == "bovine-sign":
        from bovine.crypto.http_signature import build_signature
        from bovine.crypto.helper import content_digest_sha256
        from bovine.crypto.types import CryptographicSecret
        secret = CryptographicSecret.from_pem(args["keyId"], read("private.pem").decode())
        helper = (build_signature(args["host"], "post", args["path"])
                  .with_field("date", args["date"])
                  .with_field("digest", content_digest_sha256(body))
                  .with_field("content-type", "application/activity+json"))
        signature = helper.sign_for_http_draft(secret)
        print(json.dumps(list({"host": args["host"], **helper.headers, "signature": signature}.items())))
    elif mode == "verify":
        from httpsig.verify import HeaderVerifier
        from bovine.crypto.digest import validate_digest
        headers = dict(args["headers"])
        lower = {k.lower(): v for k, v in headers.items()}
        verifier = HeaderVerifier(headers, read("public.pem").decode(),
                                  required_headers=["(request-target)", "host", "date", "digest"],
                                  method=args["method"], path=args["path"], sign_header="signature")
        print(json.dumps({"signature": verifier.verify(), "digest": validate_digest(lower, body)}))
    """#

    /// Runs the script in `mode` over the files it needs; its JSON answer.
    static func run(_ python: String, _ mode: String, args: [String: Any], body: [UInt8],
                    privatePEM: String? = nil, publicPEM: String? = nil) throws -> Any {
        try withTemporaryFolder { folder in
            try JSONSerialization.data(withJSONObject: args).write(to: folder.appendingPathComponent("args.json"))
            try Data(body).write(to: folder.appendingPathComponent("body"))
            if let privatePEM { try Data(privatePEM.utf8).write(to: folder.appendingPathComponent("private.pem")) }
            if let publicPEM { try Data(publicPEM.utf8).write(to: folder.appendingPathComponent("public.pem")) }
            let (status, output) = try tool(python, ["-c", script, mode, folder.path])
            try #require(status == 0, "\(mode) exited \(status)")
            return try JSONSerialization.jsonObject(with: Data(output.utf8))
        }
    }

    /// A request the Python side signed, as our inbox would read it.
    static func theirs(_ python: String, _ mode: String, date: Date) throws -> SignedRequest {
        let answer = try run(python, mode, args: ["keyId": TestKeys.keyID, "host": "blog.example",
                                                  "path": "/ap/alice/inbox", "date": HTTPDate.format(date)],
                             body: TestKeys.body, privatePEM: TestKeys.alice.privateKeyPEM)
        let pairs = try #require(answer as? [[String]])
        return SignedRequest(method: "POST", path: "/ap/alice/inbox", headers: pairs.map { ($0[0], $0[1]) }, body: TestKeys.body)
    }

    @Test(arguments: ["httpsig-sign", "bovine-sign"])
    func theySignWeVerify(_ mode: String) throws {
        guard let python = try Self.python() else { return }
        let request = try Self.theirs(python, mode, date: TestKeys.now)
        let verifier = HTTPSignatureVerifier()
        let signature = try verifier.verify(request, key: TestKeys.alice.publicKey, now: TestKeys.now)
        #expect(signature.keyID == TestKeys.keyID)
        #expect(signature.headers.contains("content-type"))
        // One byte of the body changed: refused.
        var changed = request
        changed.body[10] ^= 0x20
        #expect(throws: SignatureError.digestMismatch) {
            try verifier.verify(changed, key: TestKeys.alice.publicKey, now: TestKeys.now)
        }
        #expect(throws: SignatureError.badSignature) {
            try verifier.verify(request, key: TestKeys.mallory.publicKey, now: TestKeys.now)
        }
    }

    @Test func weSignHttpsigAndBovineVerify() throws {
        guard let python = try Self.python() else { return }
        let request = try TestKeys.signedPost()
        func verdict(_ request: SignedRequest, key: ActorKeyPair = TestKeys.alice) throws -> [String: Bool] {
            let answer = try Self.run(python, "verify", args: [
                "headers": request.headers.map { [$0.0, $0.1] }, "method": "POST", "path": request.target,
            ], body: request.body, publicPEM: key.publicKeyPEM)
            return try #require(answer as? [String: Bool])
        }
        #expect(try verdict(request) == ["signature": true, "digest": true])
        var changed = request
        changed.body[10] ^= 0x20
        #expect(try verdict(changed) == ["signature": true, "digest": false])
        #expect(try verdict(request, key: TestKeys.mallory) == ["signature": false, "digest": true])
        var moved = request
        moved.path = "/users/carol/inbox"
        #expect(try verdict(moved)["signature"] == false)
    }
}
