import ArgumentParser

/// `blogbench`: load for a blogd server. `run` (the default, so plain
/// `blogbench --op bad` still works) measures latency and throughput;
/// `churn` opens and tears down connections to prove the server survives it;
/// `idle` holds many silent connections to see what each costs; `attack`
/// measures a well-behaved client while another address attacks; `fanout`
/// times one post delivered to a farm of ActivityPub inboxes.
struct Blogbench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blogbench",
        abstract: "Load generator for the blog protocol (blogd): throughput and latency percentiles, or connection churn.",
        subcommands: [Run.self, Churn.self, Idle.self, Attack.self, Fanout.self],
        defaultSubcommand: Run.self
    )
}

/// A reason the bench cannot run (server unreachable, preparation refused).
struct BenchFailure: Error {
    let message: String
}
