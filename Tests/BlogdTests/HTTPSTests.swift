import BlogTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real blogd serving its pages over HTTPS, with the certificate it
/// is configured with, sending plain HTTP there, and taking a renewed
/// certificate on SIGHUP without a restart.
@Suite(.serialized)
struct HTTPSTests {
    @Test func httpsWithRedirectAndCertificateReloadOnSIGHUP() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-https-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func certificate(_ name: String) throws -> String {
            let path = folder.appendingPathComponent("\(name).crt").path
            #expect(try tool("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                         "-subj", "/CN=\(name)", "-addext", "subjectAltName=DNS:localhost",
                                         "-days", "2", "-keyout", folder.appendingPathComponent("\(name).key").path,
                                         "-out", path]).status == 0)
            return path
        }
        let first = try certificate("first"), second = try certificate("second")
        let live = folder.appendingPathComponent("cert.pem").path, key = folder.appendingPathComponent("key.pem").path
        func install(_ name: String) throws {
            for (from, to) in [("\(name).crt", live), ("\(name).key", key)] {
                try? FileManager.default.removeItem(atPath: to)
                try FileManager.default.copyItem(atPath: folder.appendingPathComponent(from).path, toPath: to)
            }
        }
        try install("first")
        let config = folder.appendingPathComponent("blogd.json")
        try Data(#"{"https_port": 0, "tls_certificate": "\#(live)", "tls_key": "\#(key)", "http_redirect_https": true, "busy_delay": 0}"#.utf8)
            .write(to: config)
        let server = try BlogdProcess(
            ["serve", "--config", config.path, "--host", "127.0.0.1", "--port", "0", "--http", "0",
             "--db", folder.appendingPathComponent("blog.sqlite").path,
             "--public", folder.appendingPathComponent("public").path])
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        let https = try #require(server.stderr.firstMatch(of: /https on \S+:(\d+)/).flatMap { Int($0.output.1) })
        let http = try server.waitForHTTPPort()

        let page = try tool("curl", ["-sS", "--max-time", "60", "--cacert", first, "https://localhost:\(https)/alice.html"])
        #expect(page.status == 0)
        #expect(page.output.contains("<title>alice"))
        let redirect = try tool("curl", ["-sS", "--max-time", "60", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}",
                                         "http://localhost:\(http)/alice.html"])
        #expect(redirect.output == "301 https://localhost:\(https)/alice.html")

        // A renewal: new files, a SIGHUP, the new certificate.
        try install("second")
        kill(server.pid, SIGHUP)
        #expect(server.waitUntil(timeout: 60) { server.stderr.contains("tls certificate reloaded") })
        #expect(try tool("curl", ["-sS", "--max-time", "60", "--cacert", second, "https://localhost:\(https)/alice.html"]).status == 0)
        #expect(try tool("curl", ["-sS", "--max-time", "60", "--cacert", first, "https://localhost:\(https)/alice.html"]).status == 60)

        // Broken files on a SIGHUP: said, and the old pair stays.
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: live))
        kill(server.pid, SIGHUP)
        #expect(server.waitUntil(timeout: 60) { server.stderr.contains("tls certificate not reloaded") })
        #expect(try tool("curl", ["-sS", "--max-time", "60", "--cacert", second, "https://localhost:\(https)/alice.html"]).status == 0)
        #expect(server.stop(signal: SIGTERM, timeout: 60) == 0)
    }

    @Test func anUnusableCertificateStopsTheStartWithOneLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-https-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("none.pem").path
        let result = try runBlogd(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0",
                                   "--db", folder.appendingPathComponent("blog.sqlite").path,
                                   "--public", folder.appendingPathComponent("public").path],
                                  environment: ["BLOGD_HTTPS_PORT": "0", "BLOGD_TLS_CERTIFICATE": missing, "BLOGD_TLS_KEY": missing])
        #expect(result.status != 0)
        #expect(result.err.contains("cannot use \(missing)"), "\(result.err)")
    }
}
