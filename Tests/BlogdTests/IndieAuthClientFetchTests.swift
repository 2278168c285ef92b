import BlogTestSupport
import Foundation
import Testing

/// The real binary's authorization page fetches the app's client_id with
/// the outgoing bounds: on loopback only with `outgoing_allow_private`,
/// and never without it.
@Suite(.serialized)
struct IndieAuthClientFetchTests {
    func authorizationPath(client: String, redirect: String) -> String {
        let fields = [("response_type", "code"), ("client_id", client), ("redirect_uri", redirect), ("state", "s"),
                      ("code_challenge", String(repeating: "a", count: 43)), ("code_challenge_method", "S256")]
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return "/app/auth?" + fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            .joined(separator: "&")
    }

    /// GETs the authorization page of an app on loopback with
    /// `outgoing_allow_private` as given; the app's server's requests.
    func requestsForAuthorization(allowPrivate: Bool) throws -> (status: Int, paths: [String], agents: [String]) {
        let stub = try HTTPStubServer { _ in
            .html("<div class=\"h-app\"><a class=\"p-name u-url\" href=\"/\">Loopback App</a></div>",
                  headers: [("Link", "<https://elsewhere.example/cb>; rel=\"redirect_uri\"")])
        }
        defer { stub.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-clientinfo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        let server = try BlogdProcess(
            ["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0",
             "--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path],
            environment: ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1",
                          "BLOGD_OUTGOING_ALLOW_PRIVATE": allowPrivate ? "true" : "false"])
        defer { _ = server.stop() }
        let http = try server.waitForHTTPPort()
        // Not signed in: the app is checked (its published redirect URI
        // on another origin), then the login form.
        let reply = try httpRequest(port: http, path: authorizationPath(client: stub.url("/app"),
                                                                        redirect: "https://elsewhere.example/cb"))
        return (reply.status, stub.requests.map(\.path), stub.requests.map { $0.headers["user-agent"] ?? "" })
    }

    @Test func theClientIDIsFetchedWhenPrivateAddressesAreAllowed() throws {
        let (status, paths, agents) = try requestsForAuthorization(allowPrivate: true)
        #expect(status == 303, "the published redirect URI is accepted: on to the login form")
        #expect(paths == ["/app"])
        #expect(agents.allSatisfy { $0.hasPrefix("blogd (IndieAuth; +") }, "\(agents)")
    }

    @Test func aLoopbackClientIDIsNeverFetchedOtherwise() throws {
        let (status, paths, _) = try requestsForAuthorization(allowPrivate: false)
        #expect(status == 400, "host only: another origin is not accepted")
        #expect(paths.isEmpty)
    }
}
