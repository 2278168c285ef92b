import Foundation
import Testing

/// `/metrics` of the real binary: off by default, on with `--metrics`, on
/// a listener of its own; what it counts, what it never shows, and
/// `blogd stats` reading it.
@Suite(.serialized)
struct MetricsEndpointTests {
    let folder: URL
    let environment = ["BLOGD_SCRYPT_LOG_N": "4", "BLOGD_SCRYPT_P": "1"]
    /// A name that appears nowhere else, so that finding it means a leak.
    let user = "Quokka7zq"
    /// The client's address: one of 127/8 that nothing else here uses.
    let client = "127.0.0.23"

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogd-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
    }

    var data: [String] {
        ["--db", folder.appendingPathComponent("blog.sqlite").path, "--public", folder.appendingPathComponent("public").path]
    }

    /// A server on free ports, with metrics on when `metrics`; its blog
    /// port and, when on, its metrics port (from the log).
    func start(metrics: Bool) throws -> (BlogdProcess, port: Int, metrics: Int?) {
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0"] + (metrics ? ["--metrics", "0"] : []) + data,
                                      environment: environment)
        let port = try server.waitForPort()
        // Logged before the `listening on` line the port came from.
        let metricsPort = server.stderr.firstMatch(of: /metrics on 127\.0\.0\.1:(\d+)/).flatMap { Int($0.output.1) }
        return (server, port, metricsPort)
    }

    @Test func countsRequestsByCommandAndReplyAndShowsNoNameOrAddress() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port, metricsPort) = try start(metrics: true)
        defer { server.ensureStopped() }
        let metrics = try #require(metricsPort, "no metrics line in: \(server.stderr)")

        #expect(try exchange("register:\(user):pw[E];", port: port, from: client) == "reg:OK[E];")
        #expect(try exchange("login:\(user):pw[E];", port: port, from: client) == "log:OK[E];")
        #expect(try exchange("newpost:\(user):Hello:First post[E];", port: port, from: client) == "post:OK[E];")
        #expect(try exchange("frobnicate:\(user)[E];", port: port, from: client) == "err:CMD[E];")

        let reply = try httpRequest(port: metrics, path: "/metrics")
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let samples = MetricLines(reply.body)
        // Each reply is counted before it is sent: all four are in.
        #expect(samples.requests == [
            "login log:OK": 1, "newpost post:OK": 1, "register reg:OK": 1, "unknown err:CMD": 1,
        ])
        #expect(samples.value(#"blogd_request_duration_seconds_count{command="register"}"#) == 1)
        #expect(samples.value(#"blogd_request_duration_seconds_count{command="newpost"}"#) == 1)
        #expect((samples.value("blogd_connections_accepted_total") ?? 0) >= 4)
        #expect((samples.value("blogd_group_commits_total") ?? 0) >= 1)
        // The commits and the writes timed (the register's at least).
        #expect((samples.value("blogd_group_commit_seconds_count") ?? 0) >= 1)
        #expect((samples.value("blogd_storage_write_seconds_count") ?? 0) >= 1)
        #expect((samples.value("blogd_page_writes_total") ?? 0) >= 1)
        #expect(samples.value(#"blogd_lane_wait_seconds_count{lane="hash"}"#) == 2, "a register and a login hashed")

        for line in reply.body.split(separator: "\n") {
            #expect(!line.lowercased().contains(user.lowercased()), "a user name in: \(line)")
            #expect(!line.contains(client) && !line.contains("127.0.0.1"), "an address in: \(line)")
        }

        // Only /metrics, read-only; and the page server is not there.
        #expect(try httpRequest(port: metrics, path: "/").status == 404)
        #expect(try httpRequest(port: metrics, path: "/\(user).html").status == 404)
        #expect(try httpRequest(port: metrics, method: "POST", path: "/metrics").status == 405)
        #expect(server.stop() == 0)
    }

    /// Every metric has its `# HELP`; the page server's answers are
    /// counted by method and status; the process's own figures and the
    /// build are there.
    @Test func helpPageServerRequestsProcessAndBuild() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let started = Date().timeIntervalSince1970
        let server = try BlogdProcess(["serve", "--host", "127.0.0.1", "--port", "0", "--http", "0", "--metrics", "0"] + data,
                                      environment: environment)
        defer { server.ensureStopped() }
        let port = try server.waitForPort()
        let metrics = try #require(server.stderr.firstMatch(of: /metrics on 127\.0\.0\.1:(\d+)/).flatMap { Int($0.output.1) })
        let http = try server.waitForHTTPPort()
        #expect(try exchange("register:\(user):pw[E];", port: port, from: client) == "reg:OK[E];")
        #expect(try httpRequest(port: http, path: "/\(user).html").status == 200)
        #expect(try httpRequest(port: http, path: "/\(user).html").status == 200)
        #expect(try httpRequest(port: http, path: "/nothing-here.html").status == 404)
        #expect(try httpRequest(port: http, method: "HEAD", path: "/\(user).html").status == 200)
        #expect(try httpRequest(port: http, method: "BREW", path: "/").status >= 400)

        let body = try httpRequest(port: metrics, path: "/metrics").body
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var types = 0
        for (index, line) in lines.enumerated() where line.hasPrefix("# TYPE ") {
            types += 1
            let name = line.split(separator: " ")[2]
            let help = index > 0 ? lines[index - 1] : ""
            #expect(help.hasPrefix("# HELP \(name) ") && help.count > "# HELP \(name) ".count + 10, "\(line) after \(help)")
            #expect(!help.hasSuffix("A metric of blogd."), "no help text of its own: \(name)")
        }
        #expect(types >= 10)

        let samples = MetricLines(body)
        func answers(_ method: String, _ code: Int) -> Double? {
            samples.values.first { series, _ in
                series.hasPrefix("blogd_http_requests_total{") && series.contains("method=\"\(method)\"")
                    && series.contains("code=\"\(code)\"")
            }?.value
        }
        #expect(answers("GET", 200) == 2)
        #expect(answers("GET", 404) == 1)
        #expect(answers("HEAD", 200) == 1)
        #expect(samples.values.keys.filter { $0.contains("BREW") }.isEmpty, "a client's method is no label")
        #expect(samples.values.keys.contains { $0.hasPrefix("blogd_http_requests_total{") && $0.contains("method=\"other\"") })

        #expect((samples.value("process_cpu_seconds_total") ?? 0) > 0)
        #expect((samples.value("process_resident_memory_bytes") ?? 0) > 1_000_000)
        #expect((samples.value("process_open_fds") ?? 0) >= 5)
        #expect((samples.value("process_max_fds") ?? 0) >= (samples.value("process_open_fds") ?? 0))
        let start = try #require(samples.value("process_start_time_seconds"))
        #expect(abs(start - started) < 120, "started at \(start), the test at \(started)")
        let build = try #require(samples.values.first { $0.key.hasPrefix("blogd_build_info{") })
        #expect(build.value == 1)
        #expect(build.key.contains("version=\"0.") && build.key.contains("swift_version=\"6."), "\(build.key)")
        #expect(server.stop() == 0)
    }

    @Test func offByDefaultWithNoListener() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port, metricsPort) = try start(metrics: false)
        defer { server.ensureStopped() }
        #expect(metricsPort == nil)
        #expect(!server.stderr.contains("metrics on"))
        // The blog port is all it listens on.
        #expect(listeningPorts(of: server.pid) == [port])
        let stats = try runBlogd(["stats"], environment: environment)
        #expect(stats.status != 0)
        #expect(stats.err.hasPrefix("blogd: metrics are off"), "\(stats.err)")
        #expect(stats.err.split(separator: "\n").count == 1, "one line: \(stats.err)")
        #expect(server.stop() == 0)
    }

    @Test func metricsHaveTheirOwnListener() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port, metricsPort) = try start(metrics: true)
        defer { server.ensureStopped() }
        let metrics = try #require(metricsPort)
        #expect(listeningPorts(of: server.pid) == [port, metrics])
        #expect(server.stop() == 0)
    }

    @Test func statsPrintsTheFigures() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port, metricsPort) = try start(metrics: true)
        defer { server.ensureStopped() }
        let metrics = try #require(metricsPort)
        #expect(try exchange("register:\(user):pw[E];", port: port) == "reg:OK[E];")
        #expect(try exchange("login:\(user):wrong[E];", port: port) == "log:NA[E];")
        #expect(try exchange("hello[E];", port: port) == "err:CMD[E];")

        let stats = try runBlogd(["stats", "--metrics", String(metrics)], environment: environment)
        #expect(stats.status == 0, "\(stats.err)")
        let lines = stats.out.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("register reg:OK 1"), "\(stats.out)")
        #expect(lines.contains("login log:NA 1"), "\(stats.out)")
        #expect(lines.contains("unknown err:CMD 1"), "\(stats.out)")
        // Latency by command, with quantiles from the buckets.
        #expect(lines.contains { $0.hasPrefix("register 1 ") }, "\(stats.out)")
        #expect(stats.out.contains("connections: "), "\(stats.out)")
        #expect(stats.out.contains("lanes: hash "), "\(stats.out)")
        #expect(stats.out.contains("commits: "), "\(stats.out)")
        #expect(!stats.out.contains(user))

        #expect(server.stop() == 0)
        // Nobody there any more: one clear line.
        let gone = try runBlogd(["stats", "--metrics", String(metrics)], environment: environment)
        #expect(gone.status != 0)
        #expect(gone.err.hasPrefix("blogd: no metrics at 127.0.0.1:\(metrics)"), "\(gone.err)")
        #expect(gone.err.split(separator: "\n").count == 1, "one line: \(gone.err)")
    }
}

/// The sample lines of a `/metrics` body, by series (`name{labels}`).
struct MetricLines {
    let values: [String: Double]

    init(_ body: String) {
        var values: [String: Double] = [:]
        for line in body.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            values[String(line[..<space])] = value
        }
        self.values = values
    }

    func value(_ series: String) -> Double? { values[series] }

    /// `blogd_requests_total` above zero, as "COMMAND REPLY".
    var requests: [String: Double] {
        var found: [String: Double] = [:]
        for (series, value) in values where series.hasPrefix("blogd_requests_total{") && value > 0 {
            guard let command = series.firstMatch(of: /command="([^"]*)"/)?.output.1,
                  let reply = series.firstMatch(of: /reply="([^"]*)"/)?.output.1 else { continue }
            found["\(command) \(reply)"] = value
        }
        return found
    }
}

/// The TCP ports `pid` listens on: its sockets (from /proc/PID/fd) that
/// /proc/net/tcp and tcp6 list in the LISTEN state.
func listeningPorts(of pid: Int32) -> Set<Int> {
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
    var inodes = Set<String>()
    for fd in fds {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
              target.hasPrefix("socket:[") else { continue }
        inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
    }
    var ports = Set<Int>()
    for table in ["/proc/\(pid)/net/tcp", "/proc/\(pid)/net/tcp6"] {
        guard let text = wholeFile(table) else { continue }
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // local_address is fields[1] (HEX_ADDRESS:HEX_PORT), st fields[3], inode fields[9].
            guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])),
                  let port = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }) else { continue }
            ports.insert(port)
        }
    }
    return ports
}

/// A /proc file, read to its end: it reports no size, and a busy machine's
/// socket tables run to many pages.
func wholeFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = read(fd, &chunk, chunk.count)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
