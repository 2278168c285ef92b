import Foundation
import Testing

/// Runs the `blog` binary built beside the tests.
enum CLIRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The `blog` executable: next to the test bundle, else in .build/debug.
    static let binary: URL? = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("blog"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("blog"),
            Bundle.main.bundleURL.appendingPathComponent("blog"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/blog"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs `blog ARGUMENTS` with `BLOG_PASSWORD` set to `password` (unset
    /// when nil) and `input` on standard input (empty when nil); kills it
    /// after `timeout` seconds.
    static func run(_ arguments: [String], password: String?, input: String? = nil,
                    timeout: Double = 20) throws -> Result {
        let binary = try #require(binary, "the blog executable was not built")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        if let password { environment["BLOG_PASSWORD"] = password }
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data((input ?? "").utf8))
        try stdin.fileHandleForWriting.close()
        // Small outputs: they fit the pipes, so reading after exit is safe.
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            exited.wait()
            Issue.record("blog \(arguments.joined(separator: " ")) did not finish in \(timeout) s")
        }
        let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Result(status: process.terminationStatus, stdout: out, stderr: err)
    }
}
