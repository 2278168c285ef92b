import BlogTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Testing
@testable import BlogWeb

/// HTTPS on the page server: real certificates made by `openssl`, real
/// TLS clients (`curl`, which checks the certificate against the one it
/// is told to trust), a real `WebServer` on loopback.
@Suite
struct TLSTests {
    let folder: TempFolder

    init() throws {
        folder = try TempFolder()
    }

    /// A self-signed certificate for localhost and 127.0.0.1, and its key.
    func makeCertificate(_ name: String) throws -> (certificate: String, key: String) {
        let certificate = folder.root.appendingPathComponent("\(name).crt").path
        let key = folder.root.appendingPathComponent("\(name).key").path
        let status = try tool("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                         "-subj", "/CN=\(name)", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                                         "-days", "2", "-keyout", key, "-out", certificate]).status
        #expect(status == 0, "openssl made no certificate")
        return (certificate, key)
    }

    /// `curl`'s exit status and output for `url`, trusting only `ca`.
    /// Status 60 is a certificate curl does not trust; 35, a failed handshake.
    func curl(_ url: String, trusting ca: String, _ extra: [String] = []) throws -> (status: Int32, output: String) {
        try tool("curl", ["-sS", "--max-time", "60", "--cacert", ca] + extra + [url])
    }

    func start(_ tls: WebServer.TLS) async throws -> WebServer {
        try await WebServer(folder: folder.public, host: "127.0.0.1", port: 0, logger: Logger(label: "test.https"), limits: .patient, tls: tls)
    }

    @Test func pagesAreServedOverHTTPSWithTheGivenCertificate() async throws {
        let pair = try makeCertificate("first")
        let other = try makeCertificate("other")
        let web = try await start(WebServer.TLS(certificates: try TLSCertificates(certificate: pair.certificate, key: pair.key), port: 0))
        let tlsPort = try #require(web.tlsPort)
        #expect(tlsPort != web.port)
        let page = try curl("https://localhost:\(tlsPort)/alice.html", trusting: pair.certificate)
        #expect(page.status == 0)
        #expect(page.output == "<h1>alice</h1>")
        // Another certificate is not trusted in its place: curl checked it.
        #expect(try curl("https://localhost:\(tlsPort)/alice.html", trusting: other.certificate).status == 60)
        // Plain HTTP still answers on its own port.
        #expect(try tool("curl", ["-sS", "http://127.0.0.1:\(web.port)/alice.html"]).output == "<h1>alice</h1>")
        await web.stop()
    }

    @Test func aReloadServesTheNewCertificateToNewConnections() async throws {
        let first = try makeCertificate("first")
        let second = try makeCertificate("second")
        let live = folder.root.appendingPathComponent("live")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
        let certificate = live.appendingPathComponent("cert.pem").path, key = live.appendingPathComponent("key.pem").path
        try FileManager.default.copyItem(atPath: first.certificate, toPath: certificate)
        try FileManager.default.copyItem(atPath: first.key, toPath: key)
        let certificates = try TLSCertificates(certificate: certificate, key: key)
        let web = try await start(WebServer.TLS(certificates: certificates, port: 0))
        let url = "https://localhost:\(try #require(web.tlsPort))/alice.html"
        #expect(try curl(url, trusting: first.certificate).status == 0)

        // A renewal: new files in place, then a reload.
        for (from, to) in [(second.certificate, certificate), (second.key, key)] {
            try FileManager.default.removeItem(atPath: to)
            try FileManager.default.copyItem(atPath: from, toPath: to)
        }
        #expect(try curl(url, trusting: first.certificate).status == 0, "nothing changes before the reload")
        try certificates.reload()
        #expect(try curl(url, trusting: second.certificate).status == 0)
        #expect(try curl(url, trusting: first.certificate).status == 60)

        // A reload of broken files fails and keeps the pair in use.
        try "not a certificate".write(toFile: certificate, atomically: true, encoding: .utf8)
        #expect(throws: TLSError.self) { try certificates.reload() }
        #expect(try curl(url, trusting: second.certificate).status == 0)
        await web.stop()
    }

    @Test func unusableFilesAreOneClearError() throws {
        let pair = try makeCertificate("first")
        let other = try makeCertificate("other")
        let missing = folder.root.appendingPathComponent("missing.pem").path
        #expect {
            try TLSCertificates(certificate: missing, key: pair.key)
        } throws: { error in
            guard case .unreadable(let path, _) = error as? TLSError else { return false }
            return path == missing
        }
        #expect {
            try TLSCertificates(certificate: pair.certificate, key: pair.certificate)
        } throws: { error in
            guard case .unreadable(let path, _) = error as? TLSError else { return false }
            return path == pair.certificate
        }
        // A FIFO would block the reload (and blogd's signal loop) in its read.
        let fifo = folder.root.appendingPathComponent("fifo.pem").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect {
            try TLSCertificates(certificate: fifo, key: pair.key)
        } throws: { error in
            guard case .unreadable(let path, let reason) = error as? TLSError else { return false }
            return path == fifo && reason == "not a regular file"
        }
        #expect {
            try TLSCertificates(certificate: pair.certificate, key: other.key)
        } throws: { error in
            guard case .mismatch = error as? TLSError else { return false }
            return true
        }
    }

    @Test func plainHTTPIsSentToHTTPSButTheHealthCheck() async throws {
        let pair = try makeCertificate("first")
        let web = try await start(WebServer.TLS(certificates: try TLSCertificates(certificate: pair.certificate, key: pair.key),
                                                port: 0, redirectPlain: true))
        let tlsPort = try #require(web.tlsPort)
        let port = web.port
        let (page, hostile, health, absolute) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            // Each with a Host of its own (`request` sends localhost).
            func get(_ target: String, host: String) throws -> RawResponse {
                _ = connection.send("GET \(target) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                return try connection.readResponse()
            }
            return (try get("/alice.html?x=1", host: "blog.example:\(port)"),
                    try get("/alice.html", host: "evil.example/@x"),
                    try get("/healthz", host: "localhost"),
                    try get("http://localhost/a/b.html?q", host: "[::1]:80"))
        }
        #expect(page.status == 301)
        #expect(page.headers["location"] == "https://blog.example:\(tlsPort)/alice.html?x=1")
        // A Host that is no plain name does not shape the Location.
        #expect(hostile.headers["location"] == "https://localhost:\(tlsPort)/alice.html")
        #expect(health.status != 301, "balancers check health over plain HTTP")
        #expect(absolute.headers["location"] == "https://[::1]:\(tlsPort)/a/b.html?q")
        // Followed, the redirect lands on the page.
        let followed = try tool("curl", ["-sSL", "--max-time", "60", "--cacert", pair.certificate, "http://localhost:\(port)/alice.html"])
        #expect(followed.output == "<h1>alice</h1>")
        await web.stop()
    }

    /// A client that speaks plain HTTP to the HTTPS port, or garbage, or
    /// nothing at all, loses its connection; the others are served.
    @Test func hostileClientsOnTheHTTPSPort() async throws {
        let pair = try makeCertificate("first")
        // The silent one waits out a timeout: 5 s, not less, since the same
        // limit bounds the well-behaved client's handshake on a busy machine.
        var limits = WebServer.Limits()
        limits.timeout = .seconds(5)
        let web = try await WebServer(folder: folder.public, host: "127.0.0.1", port: 0, logger: Logger(label: "test.https"),
                                      limits: limits,
                                      tls: WebServer.TLS(certificates: try TLSCertificates(certificate: pair.certificate, key: pair.key), port: 0))
        let tlsPort = try #require(web.tlsPort)
        let (plain, garbage, silent) = try await offPool {
            let plain = try RawHTTPConnection(port: tlsPort)
            defer { plain.close() }
            _ = plain.send("GET /alice.html HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let garbage = try RawHTTPConnection(port: tlsPort)
            defer { garbage.close() }
            _ = garbage.send([UInt8](repeating: 0x16, count: 5) + [UInt8](repeating: 0xff, count: 4096))
            let silent = try RawHTTPConnection(port: tlsPort)
            defer { silent.close() }
            return (try plain.readUntilEnd(), try garbage.readUntilEnd(), try silent.readUntilEnd())
        }
        #expect(!String(decoding: plain.bytes, as: UTF8.self).contains("alice"), "no page without TLS")
        #expect(!String(decoding: garbage.bytes, as: UTF8.self).contains("alice"))
        #expect(silent.bytes.isEmpty, "a silent client is closed by the timeout")
        #expect(try curl("https://localhost:\(tlsPort)/alice.html", trusting: pair.certificate).output == "<h1>alice</h1>")
        await web.stop()
    }
}
