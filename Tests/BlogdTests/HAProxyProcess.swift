import BlogSockets
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A throw-away HAProxy in front of blogd instances: its own config in a
/// temporary folder, a free port, TCP mode, the PROXY protocol v2 to each
/// instance. Stopped (SIGTERM, then SIGKILL) when released.
final class HAProxyProcess: @unchecked Sendable {
    let process = Process()
    let port: Int
    let folder: URL

    /// The haproxy binary, or nil when it is not installed.
    static let binary: URL? = ["/usr/sbin/haproxy", "/usr/local/sbin/haproxy", "/usr/bin/haproxy"]
        .map(URL.init(fileURLWithPath:))
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// Whether the tests that need HAProxy can run; without it they are
    /// skipped, unless `BLOGD_REQUIRE_HAPROXY=1` (CI) makes that a failure.
    static let available: Bool = {
        if binary != nil { return true }
        if ProcessInfo.processInfo.environment["BLOGD_REQUIRE_HAPROXY"] == "1" { return true }
        print("skipping HAProxy tests: haproxy not found (apt-get install haproxy, or set BLOGD_REQUIRE_HAPROXY=1 to fail instead)")
        return false
    }()

    /// Starts HAProxy balancing round robin over `backends` (blog ports on
    /// 127.0.0.1), sending each a PROXY v2 header; returns once it accepts.
    /// `serverOptions` go on each `server` line (say, health checks).
    init(backends: [Int], serverOptions: String = "send-proxy-v2") throws {
        guard let binary = Self.binary else { throw Failure.notInstalled }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-haproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        port = try Self.freePort()
        let servers = backends.enumerated().map { index, port in
            "    server blogd\(index + 1) 127.0.0.1:\(port) \(serverOptions)"
        }
        let config = """
            global
                maxconn 4096
            defaults
                mode tcp
                timeout connect 60s
                timeout client 120s
                timeout server 120s
            frontend blog
                bind 127.0.0.1:\(port)
                default_backend blogd
            backend blogd
                balance roundrobin
            \(servers.joined(separator: "\n"))

            """
        let configFile = folder.appendingPathComponent("haproxy.cfg")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        try launch(binary, configFile: configFile, environment: [:])
    }

    /// Starts HAProxy on a config file of its own (the repository's, say)
    /// with `environment` added, listening on `port`; returns once it accepts.
    init(configFile: URL, port: Int, environment: [String: String]) throws {
        guard let binary = Self.binary else { throw Failure.notInstalled }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-haproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.port = port
        try launch(binary, configFile: configFile, environment: environment)
    }

    /// Runs HAProxy in the foreground on `configFile`, its output to
    /// `haproxy.log`; returns once it accepts on `port`.
    private func launch(_ binary: URL, configFile: URL, environment: [String: String]) throws {
        process.executableURL = binary
        process.arguments = ["-db", "-f", configFile.path]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let log = folder.appendingPathComponent("haproxy.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try waitUntilAccepting()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    enum Failure: Error { case notInstalled, didNotStart(String) }

    /// What HAProxy wrote (for a failing test's message).
    var log: String {
        (try? String(contentsOf: folder.appendingPathComponent("haproxy.log"), encoding: .utf8)) ?? ""
    }

    private func waitUntilAccepting() throws {
        let deadline = Date().addingTimeInterval(60)
        let address = try SocketAddress(ip: "127.0.0.1", port: port)
        while Date() < deadline && process.isRunning {
            if let socket = try? Socket.connect(to: address, until: Deadline(seconds: 5)) {
                socket.close()
                return
            }
            usleep(20_000)
        }
        throw Failure.didNotStart(log)
    }

    /// A port no one listens on now (bound to 0, then closed).
    static func freePort() throws -> Int {
        let listeners = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        defer { listeners.forEach { $0.socket.close() } }
        return listeners[0].port
    }
}
