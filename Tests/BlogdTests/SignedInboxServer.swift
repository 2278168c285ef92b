import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// The real binary serving `https://blog.example/` (plain HTTP on a
/// loopback port, as behind a TLS proxy) with a user `alice`, beside a
/// stub server on loopback that serves a remote actor, bob, and his key:
/// what the tests of signed inbox POSTs share.
struct SignedInboxServer {
    let remote: HTTPStubServer
    let server: BlogdProcess
    /// The page server's port.
    let http: Int
    let folder: URL

    /// Bob's actor id on the stub server.
    var actor: String { remote.url("/users/bob") }

    /// A Follow of alice by bob, with id `ACTOR/follows/N`.
    func follow(_ n: Int = 1) -> String {
        #"{"@context":"https://www.w3.org/ns/activitystreams","id":"\#(actor)/follows/\#(n)","#
            + #""type":"Follow","actor":"\#(actor)","object":"https://blog.example/ap/alice"}"#
    }

    /// POSTs `body` with `headers` to `path` on the page server; the status.
    func post(_ body: String, headers: [(String, String)], to path: String) throws -> String {
        var arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/activity+json",
                         "--data-binary", body]
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        return try tool("curl", arguments + ["http://127.0.0.1:\(http)\(path)"]).output
    }

    /// Runs `body` with the two servers up (nothing, silently, without curl),
    /// bob's actor signed with `bob`.
    static func run(bob: ActorKeyPair, _ body: (SignedInboxServer) throws -> Void) throws {
        if curlIsMissing() { return }
        let remote = try HTTPStubServer { request in
            if request.method == "GET", request.path == "/users/bob" {
                return HTTPStubServer.Response(status: 200, headers: [("Content-Type", "application/activity+json")],
                                               body: actor(base: "http://" + (request.headers["host"] ?? ""), key: bob))
            }
            return HTTPStubServer.Response(status: 202)
        }
        defer { remote.stop() }
        try withTemporaryFolder { folder in
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
            let data = ["--db", folder.appendingPathComponent("blog.sqlite").path,
                        "--public", folder.appendingPathComponent("public").path]
            let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_BASE_URL": "https://blog.example/",
                               "BLOGD_OUTGOING_ALLOW_PRIVATE": "true"]
            let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0"] + data,
                                          environment: environment)
            defer { _ = server.stop() }
            let http = try server.waitForHTTPPort()
            #expect(try runBlogd(["adduser", "alice"] + data, environment: environment, input: "pw\n").status == 0)
            try body(SignedInboxServer(remote: remote, server: server, http: http, folder: folder))
        }
    }

    /// Bob's actor at `base` (the stub server's own URL), with `pair`'s key.
    static func actor(base: String, key pair: ActorKeyPair) -> [UInt8] {
        let id = base + "/users/bob"
        let key: [String: Any] = ["id": id + "#main-key", "owner": id, "publicKeyPem": pair.publicKeyPEM]
        let document: [String: Any] = ["id": id, "type": "Person", "inbox": id + "/inbox", "publicKey": key]
        return Array(try! JSONSerialization.data(withJSONObject: document))
    }
}
