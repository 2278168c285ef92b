import BlogTestSupport
import Foundation
import Logging
import Testing
@testable import BlogWeb

/// What every reply of a real `WebServer` says about itself beside the
/// file: the public pages' security fields, `Strict-Transport-Security`
/// over HTTPS (and only there), and the Micropub endpoint's `Link` on
/// pages when there is one.
@Suite
struct SecurityHeaderTests {
    let folder: TempFolder

    init() throws {
        folder = try TempFolder()
        try folder.write("alice/1.html.gone", "")
        try folder.write("alice.atom", "<feed/>")
    }

    func start(micropub: String? = nil, tls: WebServer.TLS? = nil,
               application: (any WebApplication)? = nil) async throws -> WebServer {
        try await WebServer(folder: folder.public, host: "127.0.0.1", port: 0, logger: Logger(label: "test.http"),
                            limits: .patient, tls: tls, application: application, micropub: micropub)
    }

    @Test func publicFilesCarryTheirSecurityFields() async throws {
        let web = try await start()
        let port = web.port
        let (page, gone, css, feed) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            return (try connection.request("/alice.html"), try connection.request("/alice/1.html"),
                    try connection.request("/style.css"), try connection.request("/alice.atom"))
        }
        #expect(gone.status == 410)
        for reply in [page, gone, css, feed] {
            #expect(reply.headers["content-security-policy"] == PublicFolderHandler.contentSecurityPolicy)
            #expect(reply.headers["x-frame-options"] == "DENY")
            #expect(reply.headers["referrer-policy"] == "strict-origin-when-cross-origin")
            #expect(reply.headers["x-content-type-options"] == "nosniff")
            #expect(reply.headers["strict-transport-security"] == nil, "not over plain HTTP")
            #expect(reply.headers["link"] == nil, "no Micropub endpoint")
        }
        let policy = PublicFolderHandler.contentSecurityPolicy
        // The map page's Leaflet and tiles, and the post pages' <base>.
        for part in ["default-src 'none'", "script-src 'self'", "img-src 'self' data: https://tile.openstreetmap.org",
                     "base-uri 'self'", "frame-ancestors 'none'"] {
            #expect(policy.contains(part), "\(part)")
        }
        await web.stop()
    }

    /// W3C Micropub 5.3: a page names the endpoint in a `Link` field; a
    /// feed, a stylesheet do not.
    @Test func pagesNameTheMicropubEndpoint() async throws {
        let web = try await start(micropub: "https://blog.example.org/micropub")
        let port = web.port
        let (page, index, head, css, feed) = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            return (try connection.request("/alice.html"), try connection.request("/"),
                    try connection.request("/alice.html", method: "HEAD"),
                    try connection.request("/style.css"), try connection.request("/alice.atom"))
        }
        for reply in [page, index, head] {
            #expect(reply.headers["link"] == "<https://blog.example.org/micropub>; rel=\"micropub\"")
        }
        #expect(css.headers["link"] == nil && feed.headers["link"] == nil)
        await web.stop()
    }

    /// Over HTTPS every reply, a page's or the application's, carries
    /// `Strict-Transport-Security`; the same server's plain HTTP does not.
    @Test func httpsRepliesCarryStrictTransportSecurity() async throws {
        let certificate = folder.root.appendingPathComponent("tls.crt").path
        let key = folder.root.appendingPathComponent("tls.key").path
        let made = try tool("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                        "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                                        "-days", "2", "-keyout", key, "-out", certificate])
        try #require(made.status == 0, "openssl made no certificate")
        let web = try await start(tls: WebServer.TLS(certificates: try TLSCertificates(certificate: certificate, key: key), port: 0),
                                  application: ApplicationHookTests.Echo())
        let tlsPort = try #require(web.tlsPort)
        func fields(_ url: String, _ extra: [String] = []) throws -> String {
            let result = try tool("curl", ["-sS", "--max-time", "60", "--cacert", certificate, "-D", "-", "-o", "/dev/null"]
                                  + extra + [url])
            #expect(result.status == 0, "\(result.output)")
            return result.output.lowercased()
        }
        for url in ["https://localhost:\(tlsPort)/alice.html", "https://localhost:\(tlsPort)/missing.html",
                    "https://localhost:\(tlsPort)/echo"] {
            #expect(try fields(url).contains("strict-transport-security: max-age=31536000\r\n"), "\(url)")
        }
        #expect(try fields("https://localhost:\(tlsPort)/echo", ["-d", "x=1"]).contains("strict-transport-security:"))
        // A request the parser refuses is answered by another handler.
        let refused = try tool("curl", ["-sS", "--max-time", "60", "--cacert", certificate, "-D", "-", "-o", "/dev/null",
                                        "-H", "Bad Header: x", "https://localhost:\(tlsPort)/alice.html"])
        #expect(refused.output.hasPrefix("HTTP/1.1 400"), "\(refused.output)")
        #expect(refused.output.lowercased().contains("strict-transport-security: max-age=31536000"))
        #expect(try !fields("http://127.0.0.1:\(web.port)/alice.html").contains("strict-transport-security"))
        await web.stop()
    }
}
