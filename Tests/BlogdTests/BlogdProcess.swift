import BlogSQLite
import BlogTestSupport
import Foundation
import Synchronization
import Testing

/// The real `blogd` binary, run as a child process.
final class BlogdProcess: Sendable {
    let process: Process
    private let stderrText = Mutex("")

    /// The `blogd` built beside this test bundle.
    static var binary: URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        for folder in candidates {
            let url = folder.appendingPathComponent("blogd")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/blogd")
    }

    /// Starts `blogd ARGUMENTS` with `environment` added to a clean one.
    /// With `stderrReadUntilListening`, nobody reads its stderr pipe once
    /// the `listening on` line has come, as a log pipe whose reader hangs.
    init(_ arguments: [String], environment: [String: String] = [:], cwd: URL? = nil,
         stderrReadUntilListening: Bool = false) throws {
        process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var env = ["PATH": "/usr/bin:/bin"]
        env.merge(environment) { $1 }
        process.environment = env
        if let cwd { process.currentDirectoryURL = cwd }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        // Read by a thread of our own blocked in read(2): readabilityHandler
        // runs on libdispatch's fd sources, which can crash the test run
        // (swift-corelibs-libdispatch#949).
        let reader = errors.fileHandleForReading
        let thread = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(reader.fileDescriptor, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                // The end: the child exited (its copy of the write end went).
                guard count > 0 else { break }
                let listening = stderrText.withLock {
                    $0 += String(decoding: chunk[0..<count], as: UTF8.self)
                    return $0.contains("listening on ")
                }
                if stderrReadUntilListening && listening { break }
            }
        }
        thread.start()
    }

    /// Everything the process wrote to stderr so far.
    var stderr: String { stderrText.withLock { $0 } }

    /// Waits for the `listening on HOST:PORT` line and returns the port,
    /// looking every `poll` microseconds.
    func waitForPort(timeout: Double = 120, poll: UInt32 = 20_000) throws -> Int {
        try waitForPort(after: "listening", timeout: timeout, poll: poll)
    }

    /// Waits for the page server's `http on HOST:PORT` line and returns
    /// its port.
    func waitForHTTPPort(timeout: Double = 120, poll: UInt32 = 20_000) throws -> Int {
        try waitForPort(after: "http", timeout: timeout, poll: poll)
    }

    private func waitForPort(after label: String, timeout: Double, poll: UInt32) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let range = stderr.range(of: label + #" on \S+:(\d+)"#, options: .regularExpression) {
                let line = stderr[range]
                return Int(line[line.index(after: line.lastIndex(of: ":")!)...])!
            }
            guard process.isRunning else { break }
            usleep(poll)
        }
        throw ProcessFailure.noListeningLine(stderr)
    }

    /// Sends `signal` and waits for the exit status.
    func stop(signal: Int32 = SIGTERM, timeout: Double = 60) -> Int32? {
        kill(process.processIdentifier, signal)
        return waitForExit(timeout: timeout)
    }

    func waitForExit(timeout: Double = 60) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard !process.isRunning else {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }

    enum ProcessFailure: Error {
        case noListeningLine(String)
    }
}

/// Makes an empty SQLite database at `path`, as a first `blogd serve`
/// would: the admin commands refuse a database that is not there.
func makeDatabase(_ path: String) throws {
    try SQLiteStore(path: path).close()
}

/// Runs `blogd ARGUMENTS` to completion (in `cwd` if given); returns
/// status, stdout, stderr.
func runBlogd(_ arguments: [String], environment: [String: String] = [:],
              input: String? = nil, cwd: URL? = nil) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = BlogdProcess.binary
    process.arguments = arguments
    if let cwd { process.currentDirectoryURL = cwd }
    var env = ["PATH": "/usr/bin:/bin"]
    env.merge(environment) { $1 }
    process.environment = env
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let stdin = Pipe()
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try? stdin.fileHandleForWriting.close()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

// MARK: Watching the server process from outside

extension BlogdProcess {
    var pid: Int32 { process.processIdentifier }

    /// `VmHWM` (peak resident size) and `VmRSS` (resident size now) of the
    /// server, in kB, from `/proc/PID/status`; `nil` once it has exited.
    func memoryKB() -> (peak: Int, resident: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
            return Int(line.dropFirst(name.count + 1).filter(\.isNumber))
        }
        guard let peak = field("VmHWM"), let resident = field("VmRSS") else { return nil }
        return (peak, resident)
    }

    /// The server's peak resident size so far, in kB.
    var peakResidentKB: Int? { memoryKB()?.peak }

    /// Sockets the server holds open right now: its listeners and one per
    /// connection (database files and pipes are not counted).
    var openSocketCount: Int? {
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        return fds.filter { fd in
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = buffer.withUnsafeMutableBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { readlink("/proc/\(pid)/fd/\(fd)", $0.baseAddress!, $0.count) }
            }
            return n > 0 && String(decoding: buffer.prefix(n), as: UTF8.self).hasPrefix("socket:")
        }.count
    }

    /// Kills the server with SIGKILL, as a crash or power cut would, and
    /// waits until it is gone. Returns the signal that ended it.
    @discardableResult
    func crash(timeout: Double = 60) -> Int32? {
        stop(signal: SIGKILL, timeout: timeout)
    }

    /// Kills the server if it still runs: for `defer`, so that a failed
    /// test leaves no server behind.
    func ensureStopped() {
        if process.isRunning { crash() }
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` passes.
    @discardableResult
    func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
        BlogTestSupport.waitUntil(timeout: timeout, condition)
    }

    /// The `request` audit lines written to stderr so far.
    var requestLines: [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.hasSuffix("] request") }
    }
}
