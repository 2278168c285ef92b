import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// The real binary's shared inbox (`/ap/inbox`): a signed Follow posted to
/// it makes blogd fetch the signer's key with a GET signed as the site's
/// own actor (`BASE ap#main-key`, an `Application` served at `BASE ap`
/// and found by WebFinger as `acct:HOST@HOST`), as servers in "authorized
/// fetch" mode require; httpsig (PyPI) verifies that GET with the key the
/// instance actor publishes.
@Suite(.serialized)
struct SharedInboxSigningTests {
    static let bob: ActorKeyPair = try! ActorKeyPair.generate()

    /// httpsig's verdict on a GET: `true` when its signature verifies
    /// under `publicPEM` and covers `(request-target) host date`.
    static let verifyGet = #"""
    sys, json, warnings = (__import__(name) for name in ("sys", "json", "warnings"))
    warnings.simplefilter("ignore")
    from httpsig.verify import HeaderVerifier
    args = json.load(open(sys.argv[1]))
    verifier = HeaderVerifier(args["headers"], args["key"], required_headers=["(request-target)", "host", "date"],
                              method="GET", path=args["path"], sign_header="signature")
    print(json.dumps(verifier.verify()))
    """#

    /// The interpreter with httpsig, or nil (one line said) when it is
    /// missing and not required.
    static func python() throws -> String? {
        let python = ProcessInfo.processInfo.environment["BLOGD_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin/python3"
        if (try? tool(python, ["-c", "import httpsig"]).status) == 0 { return python }
        try #require(ProcessInfo.processInfo.environment["BLOGD_REQUIRE_PY_TOOLS"] != "1",
                     "httpsig is missing for \(python): pip install httpsig (and set BLOGD_PYTHON)")
        print("skipped: httpsig is missing for \(python) (set BLOGD_PYTHON to a Python with it)")
        return nil
    }

    static func curl(_ arguments: [String]) throws -> String {
        try tool("curl", ["-s"] + arguments).output
    }

    @Test func theSharedInboxFetchesKeysSignedAsTheSite() throws {
        try SignedInboxServer.run(bob: Self.bob) { blog in
            let (remote, server, http, folder) = (blog.remote, blog.server, blog.http, blog.folder)
            // A Follow of alice, signed by bob, posted to the shared inbox.
            let follow = blog.follow()
            let headers = try HTTPSignatureSigner.sign(method: "POST", url: "https://blog.example/ap/inbox",
                                                       body: Array(follow.utf8), keyID: blog.actor + "#main-key",
                                                       privateKey: Self.bob.privateKey, now: Date())
            #expect(try blog.post(follow, headers: headers, to: "/ap/inbox") == "202", "blogd: \(server.stderr)")

            // The key was fetched by a GET signed as the site.
            let get = try #require(remote.requests.first { $0.method == "GET" && $0.path == "/users/bob" })
            let signature = try SignatureHeader.find(in: get.headers.map { ($0.key, $0.value) })
            #expect(signature.keyID == "https://blog.example/ap#main-key")
            #expect(signature.headers == ["(request-target)", "host", "date"])

            // The site's actor gives that key, and WebFinger finds it.
            let accept = "application/activity+json"
            let document = try Self.curl(["-H", "Accept: \(accept)", "http://127.0.0.1:\(http)/ap"])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any],
                                    "\(document)")
            #expect(json["type"] as? String == "Application")
            #expect(json["id"] as? String == "https://blog.example/ap")
            #expect(json["inbox"] as? String == "https://blog.example/ap/inbox")
            let publicKey = try #require(json["publicKey"] as? [String: Any])
            #expect(publicKey["id"] as? String == "https://blog.example/ap#main-key")
            #expect(publicKey["owner"] as? String == "https://blog.example/ap")
            let pem = try #require(publicKey["publicKeyPem"] as? String)
            let finger = try Self.curl(["http://127.0.0.1:\(http)/.well-known/webfinger?resource=acct:blog.example@blog.example"])
            #expect(finger.contains(#""href":"https://blog.example/ap""#), "\(finger)")
            let browser = try Self.curl(["-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", "-H", "Accept: text/html",
                                         "http://127.0.0.1:\(http)/ap"])
            #expect(browser == "303 https://blog.example/")

            // Our verifier and an independent one take the GET under that key.
            let request = SignedRequest(method: "GET", path: "/users/bob", headers: get.headers.map { ($0.key, $0.value) })
            try HTTPSignatureVerifier().verify(request, signature, key: try ActorKeyPair.publicKey(pem: pem))
            guard let python = try Self.python() else { return }
            let args: [String: Any] = ["headers": get.headers, "key": pem, "path": "/users/bob"]
            let file = folder.appendingPathComponent("get.json")
            try JSONSerialization.data(withJSONObject: args).write(to: file)
            let verdict = try tool(python, ["-c", Self.verifyGet, file.path])
            #expect(verdict.status == 0)
            #expect(verdict.output.trimmingCharacters(in: .whitespacesAndNewlines) == "true", "\(verdict.output)")
            // A key other than the site's does not verify it.
            let other = try JSONSerialization.data(withJSONObject: ["headers": get.headers, "key": Self.bob.publicKeyPEM,
                                                                    "path": "/users/bob"] as [String: Any])
            try other.write(to: file)
            let refused = try tool(python, ["-c", Self.verifyGet, file.path])
            #expect(refused.output.trimmingCharacters(in: .whitespacesAndNewlines) == "false", "\(refused.output)")
        }
    }
}
