import ArgumentParser

/// `blogbench`: load for a blogd server. `run` is the default subcommand,
/// so plain `blogbench --op bad` works as before.
struct Blogbench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blogbench",
        abstract: "Load generator for the blog protocol (blogd): throughput and latency percentiles.",
        subcommands: [Run.self],
        defaultSubcommand: Run.self
    )
}

/// A reason the bench cannot run (server unreachable, preparation refused).
struct BenchFailure: Error {
    let message: String
}
