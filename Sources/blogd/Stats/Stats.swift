import ArgumentParser
import BlogModel

/// `blogd stats`: the running server's figures, from its `/metrics`, as
/// a short table.
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the running server's figures (requests, latency, connections, lanes, commits).",
        discussion: """
            Reads /metrics from the server's metrics listener: metrics_host and metrics_port from the same \
            config file, BLOGD_* environment and flags as `blogd serve` (its metrics must be on).
            """)

    @Option(help: "JSON config file (default: config/blogd.json if present).")
    var config: String?
    @Option(name: .customLong("metrics"), help: "The server's metrics port.")
    var metricsPort: Int?
    @Option(name: .customLong("metrics-host"), help: "The address its metrics listener binds (default 127.0.0.1).")
    var metricsHost: String?

    func run() async throws {
        var flags: [String: String] = [:]
        flags["metrics_port"] = metricsPort.map(String.init)
        flags["metrics_host"] = metricsHost
        do {
            let settings = try await ConfigLoader.load(file: config, flags: flags)
            let text = try MetricsAddress(settings).fetch()
            print(StatsReport(samples: PrometheusText.samples(in: text)).text, terminator: "")
        } catch let error as ConfigLoadError {
            throw fail(error.description)
        } catch let error as StatsError {
            throw fail(error.description)
        }
    }
}
