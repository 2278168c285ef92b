import BlogSockets
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The PROXY protocol in the real `blogd`: the config keys, the audit log's
/// peer, and health checks that leave no noise in the log.
@Suite(.serialized)
struct ProxyProtocolEndToEndTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        // Without it blogd warns at start, and this suite looks for warnings.
        try Data("body {}".utf8).write(to: folder.appendingPathComponent("public/style.css"))
    }

    private func start(_ extra: [String: String]) throws -> BlogdProcess {
        try BlogdProcess(
            ["serve", "--host", "127.0.0.1", "--port", "0",
             "--db", folder.appendingPathComponent("data/blog.sqlite").path,
             "--public", folder.appendingPathComponent("public").path],
            environment: environment.merging(extra) { $1 })
    }

    @Test func theAuditLogNamesTheClientAndHealthChecksAreQuiet() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try start(["BLOGD_PROXY_PROTOCOL": "true", "BLOGD_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8",
                                "BLOGD_LOG_LEVEL": "debug"])
        defer { server.ensureStopped() }
        let port = try server.waitForPort()

        let client = try WireConnection(port: port)
        try client.send("PROXY TCP4 127.0.0.2 127.0.0.1 40000 51515\r\nregister:proxied:pw[E];")
        #expect(try client.readToEnd() == "reg:OK[E];")
        client.close()
        // HAProxy's check-send-proxy: a v2 LOCAL header, then a close
        // (a FIN, or a reset as HAProxy's checks often end).
        let local = ProxyHeaderBytes.v2Local
        let check = try WireConnection(port: port)
        #expect(check.sendAll(local) == local.count)
        shutdown(check.fd, Int32(SHUT_WR))
        #expect(try check.readToEnd() == "")
        check.close()
        let resetCheck = try WireConnection(port: port)
        #expect(resetCheck.sendAll(local) == local.count)
        resetCheck.reset()
        // A plain TCP check: connect, close.
        try WireConnection(port: port).close()
        #expect(server.stop() == 0)
        server.waitUntil(timeout: 60) { server.stderr.contains("stopped") }

        let lines = server.requestLines
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.contains("peer=127.0.0.2") == true, "\(lines)")
        let log = server.stderr
        #expect(log.contains("PROXY protocol on"), "\(log)")
        #expect(log.contains("proxy health check"), "\(log)")
        for line in log.split(separator: "\n") {
            for level in [" notice ", " warning ", " error ", " critical "] where !isStartUpNotice(line) {
                #expect(!line.contains(level), "\(line)")
            }
        }
    }

    @Test func anEmptyTrustedListWarnsAtStart() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try start(["BLOGD_PROXY_PROTOCOL": "true"])
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        // Nobody is trusted: a header is refused, a direct client served.
        #expect(try exchange("PROXY TCP4 127.0.0.2 127.0.0.1 1 2\r\nping[E];", port: port) == "err:ARGS[E];")
        #expect(try exchange("ping[E];", port: port) == "err:CMD[E];")
        #expect(server.stop() == 0)
        server.waitUntil(timeout: 60) { server.stderr.contains("stopped") }
        #expect(server.stderr.contains("trusted_proxies is empty"), "\(server.stderr)")
    }

    @Test func aBadTrustedProxyStopsTheStart() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runBlogd(["serve", "--port", "0", "--db", folder.appendingPathComponent("data/blog.sqlite").path,
                                   "--public", folder.appendingPathComponent("public").path],
                                  environment: ["BLOGD_TRUSTED_PROXIES": "proxy.example"])
        #expect(result.status == 1)
        #expect(result.err.contains("invalid config value for trusted_proxies"), "\(result.err)")
    }
}

enum ProxyHeaderBytes {
    /// v2, LOCAL, UNSPEC, no addresses.
    static let v2Local: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A, 0x20, 0x00, 0x00, 0x00]
}

/// blogd behind a real HAProxy (`send-proxy-v2`, and `check-send-proxy`
/// health checks): the clients' own addresses reach leases and the audit
/// log, and the checks leave nothing but debug lines.
@Suite(.serialized, .enabled(if: HAProxyProcess.available))
struct BehindHAProxyTests {
    @Test func clientsKeepTheirAddressesThroughHAProxy() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-behind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        try Data("body {}".utf8).write(to: folder.appendingPathComponent("public/style.css"))
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try BlogdProcess(
            ["serve", "--host", "127.0.0.1", "--port", "0",
             "--db", folder.appendingPathComponent("data/blog.sqlite").path,
             "--public", folder.appendingPathComponent("public").path],
            environment: ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1", "BLOGD_LOG_LEVEL": "debug",
                          "BLOGD_PROXY_PROTOCOL": "true", "BLOGD_TRUSTED_PROXIES": "127.0.0.1"])
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        let haproxy = try HAProxyProcess(backends: [port], serverOptions: "send-proxy-v2 check check-send-proxy inter 200ms")

        func ask(_ message: String, from source: String) throws -> String {
            let client = try WireConnection(port: haproxy.port, from: source)
            defer { client.close() }
            try client.send(message)
            return try client.readReply()
        }
        #expect(try ask("register:haproxied:pw[E];", from: "127.0.0.2") == "reg:OK[E];", "\(haproxy.log)")
        #expect(try ask("newpost:haproxied:Through:HAProxy[E];", from: "127.0.0.2") == "post:OK[E];")
        #expect(try ask("newpost:haproxied:Elsewhere:c[E];", from: "127.0.0.3") == "post:NA[E];")
        // HAProxy's health checks arrive as PROXY v2 LOCAL headers.
        #expect(server.waitUntil(timeout: 60) { server.stderr.components(separatedBy: "proxy health check").count > 3 },
                "\(server.stderr)")
        #expect(try ask("newpost:haproxied:Still up:c[E];", from: "127.0.0.2") == "post:OK[E];", "\(haproxy.log)")
        #expect(server.stop() == 0)
        server.waitUntil(timeout: 60) { server.stderr.contains("stopped") }

        let peers = server.requestLines.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("peer=") }.map(String.init)
        }
        #expect(peers == ["peer=127.0.0.2", "peer=127.0.0.2", "peer=127.0.0.3", "peer=127.0.0.2"], "\(server.requestLines)")
        for line in server.stderr.split(separator: "\n") {
            for level in [" notice ", " warning ", " error ", " critical "] where !isStartUpNotice(line) {
                #expect(!line.contains(level), "\(line)")
            }
        }
    }
}

/// The lines a first start may log at notice or warning level that have
/// nothing to do with the PROXY protocol: the database and public folder
/// it made, and (tests run as root in CI) the warning about root.
func isStartUpNotice(_ line: Substring) -> Bool {
    line.contains("made a new database") || line.contains("made the public folder") || line.contains("running as root")
}
