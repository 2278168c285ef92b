import Foundation
import Testing
import BlogTestSupport

/// The real binary serves IndieAuth with its web client: every page names
/// the metadata, and the metadata's URLs are made from `base_url`.
@Suite(.serialized)
struct IndieAuthServingTests {
    @Test func theBinaryServesTheMetadataItsPagesName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-indieauth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        let server = try BlogdProcess(
            ["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0",
             "--db", folder.appendingPathComponent("blog.sqlite").path,
             "--public", folder.appendingPathComponent("public").path],
            environment: ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_BASE_URL": "https://blog.example.org/"])
        defer { _ = server.stop() }
        let http = try server.waitForHTTPPort()

        let index = try httpRequest(port: http, path: "/index.html")
        #expect(index.status == 200)
        #expect(index.body.contains("<link rel=\"indieauth-metadata\" href=\"/.well-known/oauth-authorization-server\">"))
        let reply = try httpRequest(port: http, path: "/.well-known/oauth-authorization-server")
        #expect(reply.status == 200 && reply.headers["content-type"] == "application/json")
        let metadata = try #require(try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any])
        #expect(metadata["issuer"] as? String == "https://blog.example.org/")
        #expect(metadata["authorization_endpoint"] as? String == "https://blog.example.org/app/auth")
        #expect(metadata["token_endpoint"] as? String == "https://blog.example.org/indieauth/token")
        #expect(metadata["code_challenge_methods_supported"] as? [String] == ["S256"])
        // The token endpoint answers as OAuth does, and changes nothing.
        let token = try httpRequest(port: http, method: "POST", path: "/indieauth/token")
        #expect(token.status == 400 && token.body.contains("\"error\":\"invalid_request\""))
    }
}
