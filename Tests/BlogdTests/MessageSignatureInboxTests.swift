import BlogSignatures
import BlogTestSupport
import Foundation
import Testing

/// The real binary's inbox takes an RFC 9421 signed Follow
/// (`Signature-Input`, `Signature`, `Content-Digest`): its `@target-uri`
/// read with the base URL's scheme (`https`, though the socket is plain
/// HTTP, as behind a TLS proxy), its `keyid` fetched as a draft-cavage
/// key id is. A body changed after signing is refused.
@Suite(.serialized)
struct MessageSignatureInboxTests {
    static let bob: ActorKeyPair = try! ActorKeyPair.generate()

    @Test func anRFC9421SignedFollowIsTaken() throws {
        if (try? tool("which", ["curl"]).status) != 0 { return }
        let remote = try HTTPStubServer { request in
            if request.method == "GET", request.path == "/users/bob" {
                return HTTPStubServer.Response(status: 200, headers: [("Content-Type", "application/activity+json")],
                                               body: SharedInboxSigningTests.actor(base: "http://" + (request.headers["host"] ?? ""),
                                                                                   key: Self.bob))
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
            _ = try server.waitForPort()
            let line = try #require(server.stderr.range(of: #"http on \S+:(\d+)"#, options: .regularExpression))
            let http = try #require(Int(server.stderr[line].split(separator: ":").last ?? ""))
            #expect(try runBlogd(["adduser", "alice"] + data, environment: environment, input: "pw\n").status == 0)

            let actor = remote.url("/users/bob")
            let follow = #"{"@context":"https://www.w3.org/ns/activitystreams","id":"\#(actor)/follows/1","#
                + #""type":"Follow","actor":"\#(actor)","object":"https://blog.example/ap/alice"}"#
            let headers = try MessageSignatureSigner.sign(method: "POST", url: "https://blog.example/ap/alice/inbox",
                                                          body: Array(follow.utf8), keyID: actor + "#main-key",
                                                          privateKey: Self.bob.privateKey, now: Date())
            func post(_ body: String) throws -> String {
                var arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/activity+json",
                                 "--data-binary", body]
                for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
                return try tool("curl", arguments + ["http://127.0.0.1:\(http)/ap/alice/inbox"]).output
            }
            let changed = follow.replacingOccurrences(of: "follows/1", with: "follows/2")
            #expect(try post(changed) == "401", "blogd: \(server.stderr)")
            #expect(remote.requests.isEmpty, "a changed body costs no key fetch")
            #expect(try post(follow) == "202", "blogd: \(server.stderr)")
            let get = try #require(remote.requests.first { $0.method == "GET" && $0.path == "/users/bob" })
            #expect(get.headers["signature"]?.contains("keyId=\"https://blog.example/ap/alice#main-key\"") == true)
        }
    }
}
