import Foundation

/// Runs `name` (found on PATH, or a path) with `arguments` to its end:
/// its exit status and standard output (standard error goes to the
/// test's own). For the real tools a test checks blogd with: `curl`,
/// `openssl`, a script of the repository.
///
///     let (status, page) = try tool("curl", ["-sS", "http://127.0.0.1:8080/alice.html"])
@discardableResult
public func tool(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [name] + arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    // Read before waiting: a full pipe would stall the child.
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
