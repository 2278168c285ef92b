import ArgumentParser
import Foundation

/// `blogbench`: load for a blogd server, latency and throughput out.
///
/// It prepares its own users (unmeasured), warms up, then runs the chosen
/// operation from `--clients` threads for `--duration` seconds or
/// `--requests` requests, and prints what it measured.
struct Blogbench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blogbench",
        abstract: "Load generator for the blog protocol (blogd): throughput and latency percentiles."
    )

    @OptionGroup var options: BenchOptions

    func run() throws {
        let prefix = options.userPrefix ?? Self.randomPrefix()
        let runner = Runner(options: options, workload: try options.workload(prefix: prefix))
        let result: BenchResult
        do {
            result = try runner.run()
        } catch {
            FileHandle.standardError.write(Data("blogbench: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
        let report = Report(options: options, prefix: prefix, result: result)
        print(options.json ? report.json() : report.table())
    }

    /// "bb" and five random letters/digits: names of reruns never collide
    /// with earlier ones in the same database.
    static func randomPrefix() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return "bb" + String((0..<5).map { _ in alphabet.randomElement()! })
    }
}

/// A reason the bench cannot run (server unreachable, preparation refused).
struct BenchFailure: Error {
    let message: String
}
