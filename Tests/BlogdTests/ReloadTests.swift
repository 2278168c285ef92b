import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// SIGHUP never stops blogd: it reads the configuration again and applies
/// the log level and the blog port's limits at once.
@Suite(.serialized)
struct ReloadTests {
    @Test func sighupReloadsLimitsAndLogLevelAndNeverKills() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-reload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("blogd.json")
        func write(_ json: String) throws { try Data(json.utf8).write(to: config) }
        try write(#"{"log_level": "info", "max_connections_per_address": 32, "busy_delay": 0}"#)
        let server = try BlogdProcess(
            ["serve", "--config", config.path, "--host", "127.0.0.1", "--port", "0",
             "--db", folder.appendingPathComponent("blog.sqlite").path,
             "--public", folder.appendingPathComponent("public").path])
        defer { server.ensureStopped() }
        let port = try server.waitForPort()

        // One address may hold two connections now...
        let first = try WireConnection(port: port, from: "127.0.0.2")
        defer { first.close() }
        #expect(try exchange("probe[E];", port: port, from: "127.0.0.2") == "err:CMD[E];")

        // ...and one after the reload.
        try write(#"{"log_level": "debug", "max_connections_per_address": 1, "busy_delay": 0, "read_timeout": 30}"#)
        kill(server.pid, SIGHUP)
        #expect(server.waitUntil(timeout: 60) { server.stderr.contains("configuration reloaded") })
        #expect(server.process.isRunning)
        let line = server.stderr.split(separator: "\n").first { $0.contains("configuration reloaded") }.map(String.init) ?? ""
        #expect(line.contains("applied=max_connections_per_address,log_level "), "\(line)")
        #expect(line.contains("needs_restart=read_timeout "), "\(line)")
        #expect(try exchange("probe[E];", port: port, from: "127.0.0.2") == "err:BUSY[E];")
        #expect(try exchange("probe[E];", port: port, from: "127.0.0.3") == "err:CMD[E];")

        // A broken file changes nothing and stops nothing.
        try write("{ not json")
        kill(server.pid, SIGHUP)
        #expect(server.waitUntil(timeout: 60) { server.stderr.contains("reload failed") })
        #expect(server.process.isRunning)
        #expect(try exchange("probe[E];", port: port, from: "127.0.0.2") == "err:BUSY[E];")

        // SIGHUPs are not counted as stops: the first SIGTERM is a graceful one.
        #expect(server.stop(signal: SIGTERM, timeout: 60) == 0)
        #expect(server.stderr.contains("stopped"))
    }

    /// Registration closes on SIGHUP (a spam wave), for the blog port and
    /// the web client alike; a config file gone at a reload keeps the
    /// configuration in force instead of going back to the defaults.
    @Test func sighupClosesRegistrationAndAFileGoneKeepsIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-reload-\(UUID().uuidString)")
        // The default file, config/blogd.json under the working directory.
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("config"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config/blogd.json")
        func write(_ json: String) throws { try Data(json.utf8).write(to: config) }
        try write(#"{"registration": "open", "scrypt": {"log_n": 4, "p": 1}}"#)
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0",
                                       "--db", "blog.sqlite", "--public", "public"], cwd: folder)
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        let http = try server.waitForHTTPPort()
        #expect(try exchange("register:alice:pw[E];", port: port) == "reg:OK[E];")
        #expect(!(try httpRequest(port: http, path: "/app/register")).body.contains("Registration is closed"))

        try write(#"{"registration": "closed", "scrypt": {"log_n": 4, "p": 1}}"#)
        kill(server.pid, SIGHUP)
        #expect(server.waitUntil(timeout: 60) { server.stderr.contains("configuration reloaded") })
        let line = server.stderr.split(separator: "\n").first { $0.contains("configuration reloaded") }.map(String.init) ?? ""
        #expect(line.contains("applied=registration "), "\(line)")
        #expect(try exchange("register:bob:pw[E];", port: port) == "reg:NA[E];")
        let form = try httpRequest(port: http, path: "/app/register")
        #expect(form.body.contains("Registration is closed"), "the web client: \(form.status) \(form.body.prefix(300))")

        // Gone: an error in the log, and registration stays closed.
        try FileManager.default.removeItem(at: config)
        kill(server.pid, SIGHUP)
        #expect(server.waitUntil(timeout: 60) { server.stderr.contains("reload failed") })
        let failed = server.stderr.split(separator: "\n").first { $0.contains("reload failed") }.map(String.init) ?? ""
        #expect(failed.contains("config file not found: config/blogd.json"), "\(failed)")
        #expect(try exchange("register:carol:pw[E];", port: port) == "reg:NA[E];")
        #expect(server.stop(signal: SIGTERM, timeout: 60) == 0)
    }
}
