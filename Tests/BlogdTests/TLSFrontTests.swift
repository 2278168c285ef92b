import BlogTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The blog protocol over TLS as the README sets it up: the repository's
/// `config/haproxy-tls.cfg` in a real HAProxy, a certificate made by
/// `scripts/make-tls-certificate.sh`, `openssl s_client` as the client,
/// and the plaintext port serving old clients beside it.
@Suite(.serialized, .enabled(if: HAProxyProcess.available))
struct TLSFrontTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func postsThroughTLSWhileThePlaintextPortServesTheOldClients() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tls = folder.appendingPathComponent("tls")
        #expect(try tool(Self.repository.appendingPathComponent("scripts/make-tls-certificate.sh").path,
                            [tls.path, "localhost"]).status == 0)
        let trusted = tls.appendingPathComponent("blog.crt").path

        let server = try BlogdProcess(
            ["serve", "--host", "127.0.0.1", "--port", "0",
             "--db", folder.appendingPathComponent("blog.sqlite").path,
             "--public", folder.appendingPathComponent("public").path],
            environment: ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1",
                          "BLOGD_PROXY_PROTOCOL": "true", "BLOGD_TRUSTED_PROXIES": "127.0.0.1"])
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        let tlsPort = try HAProxyProcess.freePort()
        let haproxy = try HAProxyProcess(
            configFile: Self.repository.appendingPathComponent("config/haproxy-tls.cfg"), port: tlsPort,
            environment: ["BLOGD_TLS_BIND": "127.0.0.1:\(tlsPort)", "BLOGD_TLS_PEM": tls.appendingPathComponent("blog.pem").path,
                          "BLOGD_BLOG_SERVER": "127.0.0.1:\(port)"])

        /// One message over TLS, checking the certificate, as the README shows.
        func overTLS(_ message: String) throws -> String {
            try tool("sh", ["-c",
                "printf '%s' \"$0\" | openssl s_client -quiet -verify_return_error -connect localhost:\(tlsPort) -CAfile \"$1\" 2>/dev/null",
                message, trusted]).output
        }
        #expect(try overTLS("register:alice:pw[E];") == "reg:OK[E];", "\(haproxy.log)")
        #expect(try overTLS("login:alice:pw[E];") == "log:OK[E];")
        #expect(try overTLS("newpost:alice:Sealed:sent over TLS[E];") == "post:OK[E];")
        // The client's address came through (PROXY v2): the lease is the
        // TLS client's, not the plaintext client's on another address.
        #expect(try exchange("newpost:alice:Plain:c[E];", port: port, from: "127.0.0.2") == "post:NA[E];")
        // The original protocol, byte for byte, on the plaintext port.
        #expect(try exchange("login:alice:pw[E];", port: port, from: "127.0.0.2") == "log:OK[E];")
        #expect(try exchange("newpost:alice:Plain:in the clear[E];", port: port, from: "127.0.0.2") == "post:OK[E];")
        let page = try String(contentsOf: folder.appendingPathComponent("public/alice.html"), encoding: .utf8)
        #expect(page.contains("sent over TLS") && page.contains("in the clear"))
        // A client that does not trust the certificate gets nothing through.
        let other = folder.appendingPathComponent("other")
        #expect(try tool(Self.repository.appendingPathComponent("scripts/make-tls-certificate.sh").path,
                            [other.path, "localhost"]).status == 0)
        let refused = try tool("sh", ["-c",
            "printf 'login:alice:pw[E];' | openssl s_client -quiet -verify_return_error -connect localhost:\(tlsPort) -CAfile \"$0\" 2>/dev/null",
            other.appendingPathComponent("blog.crt").path])
        #expect(refused.output.isEmpty && refused.status != 0)
        #expect(server.stop() == 0)
    }
}
