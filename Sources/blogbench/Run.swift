import ArgumentParser
import Foundation

/// `blogbench run` (the default subcommand): measured load.
///
/// It prepares its own users (unmeasured), warms up, then runs the chosen
/// operation from `--clients` threads for `--duration` seconds or
/// `--requests` requests, and prints what it measured.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Throughput and latency percentiles of one operation or a mix (the default subcommand)."
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
