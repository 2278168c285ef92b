import CLinux
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A throw-away PostgreSQL server for the tests: one per test process,
/// started on first use, stopped when the process exits.
///
/// It lives in a fresh temporary folder (data, Unix socket, log), listens
/// on 127.0.0.1 on a free port, trusts local connections, and keeps
/// `fsync` on, since durability is part of what the tests check. Run as
/// root (as the tests are here), it runs as the `postgres` user (or
/// `nobody`), since PostgreSQL refuses root. Each test makes its own
/// database with `makeDatabase()`.
///
/// When no PostgreSQL binaries are found, `PostgresCluster.enabled` is
/// false and the tests that use it are skipped, with one line saying so;
/// with `BLOGD_REQUIRE_POSTGRES=1` they run and fail instead.
/// `BLOGD_POSTGRES_BIN` names the binaries' folder, when several versions
/// are installed.
///
///     @Test(.enabled(if: PostgresCluster.enabled))
///     func something() throws {
///         let url = try PostgresCluster.shared().makeDatabase()
///     }
public final class PostgresCluster: Sendable {
    /// Why the cluster cannot be had, in one line.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The folder holding `initdb`, `pg_ctl`, `postgres` and `psql`.
    public let binaries: URL
    /// The temporary folder: `data/`, the socket, `server.log`.
    public let folder: URL
    public let port: Int
    /// The superuser the tests connect as (no password: trust).
    public let superuser = "blogd"
    /// The system user the server runs as, when the tests run as root.
    let systemUser: String?

    // MARK: Finding PostgreSQL

    /// Whether the PostgreSQL tests run: the binaries are here, or
    /// `BLOGD_REQUIRE_POSTGRES=1` asks for them (and they then fail).
    /// Prints one line when they are skipped.
    public static let enabled: Bool = {
        guard case .failure(let missing) = located else { return true }
        if required { return true }
        print("skipping PostgreSQL tests: \(missing) (install postgresql, or set BLOGD_REQUIRE_POSTGRES=1 to fail instead)")
        return false
    }()

    /// `BLOGD_REQUIRE_POSTGRES=1`: missing binaries fail the tests.
    public static var required: Bool { ProcessInfo.processInfo.environment["BLOGD_REQUIRE_POSTGRES"] == "1" }

    /// The binaries' folder: `BLOGD_POSTGRES_BIN` when set (and then only
    /// it), else where `initdb` on the PATH really is, else the newest
    /// `/usr/lib/postgresql/*/bin` (Debian keeps them off the PATH).
    static let located: Result<URL, Unavailable> = {
        let tools = ["initdb", "pg_ctl", "postgres", "psql"]
        var candidates: [URL] = []
        if let chosen = ProcessInfo.processInfo.environment["BLOGD_POSTGRES_BIN"], !chosen.isEmpty {
            let folder = URL(fileURLWithPath: chosen)
            guard tools.allSatisfy({ FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent($0).path) }) else {
                return .failure(Unavailable(description: "initdb not found in BLOGD_POSTGRES_BIN=\(chosen)"))
            }
            return .success(folder)
        }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let initdb = URL(fileURLWithPath: String(folder)).appendingPathComponent("initdb")
            if FileManager.default.isExecutableFile(atPath: initdb.path) {
                candidates.append(initdb.resolvingSymlinksInPath().deletingLastPathComponent())
            }
        }
        let debian = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: debian.path)) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            candidates.append(debian.appendingPathComponent(version).appendingPathComponent("bin"))
        }
        for folder in candidates
        where tools.allSatisfy({ FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent($0).path) }) {
            return .success(folder)
        }
        return .failure(Unavailable(description: candidates.isEmpty
            ? "initdb not found"
            : "initdb found in \(candidates[0].path) but not all of \(tools.joined(separator: ", "))"))
    }()

    // MARK: The shared cluster

    private static let started: Result<PostgresCluster, Unavailable> = {
        do {
            let binaries = try located.get()
            return .success(try PostgresCluster(binaries: binaries))
        } catch let error as Unavailable {
            let hint = required ? " (BLOGD_REQUIRE_POSTGRES=1: PostgreSQL tests must run)" : ""
            return .failure(Unavailable(description: "PostgreSQL test cluster: \(error)\(hint)"))
        } catch {
            return .failure(Unavailable(description: "PostgreSQL test cluster: \(error)"))
        }
    }()

    /// The cluster of this test process, started on the first call.
    public static func shared() throws -> PostgresCluster {
        try started.get()
    }

    /// A cluster of its own, for a test that stops and starts its server
    /// (`stop()`, `start()`); stopped at exit like the shared one.
    public static func throwAway() throws -> PostgresCluster {
        try PostgresCluster(binaries: located.get())
    }

    /// What stops each cluster at exit.
    private static let stopsAtExit = Mutex<[@Sendable () -> Void]>([])
    private static let registerAtExit: Void = {
        atexit { PostgresCluster.stopsAtExit.withLock { $0 }.forEach { $0() } }
    }()

    private var data: String { folder.appendingPathComponent("data").path }

    private init(binaries: URL) throws {
        self.binaries = binaries
        folder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("blogd-postgres-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        systemUser = geteuid() == 0 ? Self.unprivilegedUser() : nil
        if let systemUser {
            // The server's files must be its own, and no one else's.
            guard let account = getpwnam(systemUser) else { throw Unavailable(description: "no user \(systemUser)") }
            chown(folder.path, account.pointee.pw_uid, account.pointee.pw_gid)
        }
        chmod(folder.path, 0o700)

        let data = folder.appendingPathComponent("data").path
        // --no-sync: initdb's own files need no fsync for a throw-away
        // cluster; the server itself keeps fsync on.
        try Self.run(binaries.appendingPathComponent("initdb"),
                     ["-D", data, "-U", superuser, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"],
                     as: systemUser, in: folder, what: "initdb")

        var chosen: Int?
        var lastFailure = ""
        // A free port can be taken between choosing and binding: try again.
        for _ in 0..<5 {
            let port = try Self.freePort()
            do {
                try Self.startServer(binaries: binaries, data: data, port: port, as: systemUser, in: folder)
                chosen = port
                break
            } catch {
                lastFailure = "\(error)\n" + ((try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8)) ?? "")
                guard lastFailure.contains("could not bind") || lastFailure.contains("Address already in use") else {
                    throw Unavailable(description: lastFailure)
                }
            }
        }
        guard let chosen else { throw Unavailable(description: "no free port: \(lastFailure)") }
        port = chosen

        let (pgCtl, user, folder) = (binaries.appendingPathComponent("pg_ctl"), systemUser, self.folder)
        Self.registerAtExit
        Self.stopsAtExit.withLock {
            $0.append {
                _ = try? Self.run(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"], as: user, in: folder, what: "pg_ctl stop")
                try? FileManager.default.removeItem(at: folder)
            }
        }
        try waitUntilReady()
    }

    /// Starts the server of `data` on `port` and returns once it accepts
    /// connections (`-w -t 60`: however loaded the machine; 60 s is only
    /// a guard).
    private static func startServer(binaries: URL, data: String, port: Int, as user: String?, in folder: URL) throws {
        let options = [
            "-c listen_addresses=127.0.0.1", "-c port=\(port)", "-c unix_socket_directories='\(folder.path)'",
            "-c fsync=on", "-c synchronous_commit=on", "-c max_connections=300", "-c shared_buffers=32MB",
        ].joined(separator: " ")
        try run(binaries.appendingPathComponent("pg_ctl"),
                ["-D", data, "-l", folder.appendingPathComponent("server.log").path, "-o", options, "-w", "-t", "60", "start"],
                as: user, in: folder, what: "pg_ctl start")
    }

    /// Stops the server, as an outage would (`immediate`: no goodbye to
    /// the clients) or as an operator does (`fast`).
    public func stop(mode: String = "immediate") throws {
        _ = try Self.run(binaries.appendingPathComponent("pg_ctl"), ["-D", data, "-m", mode, "-w", "stop"],
                         as: systemUser, in: folder, what: "pg_ctl stop")
    }

    /// Starts the stopped server again, on the same port.
    public func start() throws {
        try Self.startServer(binaries: binaries, data: data, port: port, as: systemUser, in: folder)
        try waitUntilReady()
    }

    /// Connection attempts over TCP until one succeeds (60 s at most):
    /// `pg_ctl -w` checked the socket; the tests use TCP.
    private func waitUntilReady() throws {
        let deadline = Date().addingTimeInterval(60)
        while true {
            do {
                _ = try psql(database: "postgres", "SELECT 1")
                return
            } catch {
                if Date() > deadline { throw Unavailable(description: "the server does not answer: \(error)") }
                usleep(100_000)
            }
        }
    }

    // MARK: Databases

    /// A fresh database of its own for one test; returns its URL.
    public func makeDatabase() throws -> String {
        let name = "test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16))"
        _ = try psql(database: "postgres", "CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// The URL of `database` on this cluster, as the superuser.
    public func url(database: String) -> String {
        "postgres://\(superuser)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// The database name in a URL this cluster made.
    public static func databaseName(_ url: String) -> String {
        let path = url.split(separator: "/").last.map(String.init) ?? ""
        return String(path.split(separator: "?").first ?? "")
    }

    /// Runs `sql` (one or more statements) with `psql` on `database`;
    /// returns the rows, unaligned, `|` between fields, one a line.
    @discardableResult
    public func psql(database: String, _ sql: String) throws -> String {
        try Self.run(binaries.appendingPathComponent("psql"),
                     ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", superuser,
                      "-d", database, "-c", sql],
                     as: nil, in: folder, what: "psql")
    }

    /// Runs the SQL file at `file` with `psql` on `database`, in one transaction.
    @discardableResult
    public func psql(database: String, file: URL) throws -> String {
        try Self.run(binaries.appendingPathComponent("psql"),
                     ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-1", "-h", "127.0.0.1", "-p", "\(port)", "-U", superuser,
                      "-d", database, "-f", file.path],
                     as: nil, in: folder, what: "psql")
    }

    // MARK: Processes

    private static func unprivilegedUser() -> String {
        getpwnam("postgres") != nil ? "postgres" : "nobody"
    }

    /// Runs `tool` to its end (as `user` through runuser, when given);
    /// returns stdout, throws with stderr on failure.
    ///
    /// posix_spawn and waitpid rather than Foundation's `Process`, whose
    /// wait on Linux missed the exit of `pg_ctl start` (it leaves a server
    /// running behind it) and hung.
    @discardableResult
    static func run(_ tool: URL, _ arguments: [String], as user: String?, in folder: URL, what: String) throws -> String {
        var argv: [String]
        if let user {
            let runuser = FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") ? "/usr/sbin/runuser" : "/sbin/runuser"
            argv = [runuser, "-u", user, "--", tool.path] + arguments
        } else {
            argv = [tool.path] + arguments
        }
        // In `folder`: the server's user may not enter the current one.
        argv = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", folder.path] + argv
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        environment["PGCONNECT_TIMEOUT"] = "60"
        // Output goes to files: the server pg_ctl starts would keep a pipe
        // open long after the tool is done.
        let out = folder.appendingPathComponent(".out-\(UUID().uuidString)").path
        let err = folder.appendingPathComponent(".err-\(UUID().uuidString)").path
        defer {
            unlink(out)
            unlink(err)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Nothing else of this process: the tests' sockets and epoll sets
        // are not close-on-exec (NIO's are not), and a postmaster that
        // held a server's socket would keep it open after the server closed
        // it, for as long as the cluster runs.
        clinux_spawn_close_from(&actions, 3)
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, cEnvironment)
        guard spawned == 0 else { throw Unavailable(description: "\(what): cannot start \(argv[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Unavailable(description: "\(what): waitpid: \(errno)") }
        }
        let output = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        // Exited normally with 0 (WIFEXITED and WEXITSTATUS, spelled out).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let errors = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
            throw Unavailable(description: "\(what) failed (status \(status)): \(errors)\(output)")
        }
        return output
    }

    /// A TCP port free on 127.0.0.1 right now: bound to port 0, then closed.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Unavailable(description: "socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Unavailable(description: "bind: \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Unavailable(description: "getsockname: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
