import BlogSockets
import Foundation

/// Why `blogd stats` has no figures to show; each reads as one line.
enum StatsError: Error, Equatable, CustomStringConvertible {
    /// The configuration names no metrics port.
    case metricsOff
    /// `metrics_port` is 0: the server picked a port nobody knows here.
    case anyPort
    /// Nothing answered at the address: the server is not running, or runs without metrics.
    case notRunning(address: String, cause: SocketError)
    /// Something answered, but not with the metrics.
    case badReply(address: String, status: Int?)

    var description: String {
        switch self {
        case .metricsOff:
            "metrics are off: set metrics_port in the config (or BLOGD_METRICS_PORT, or --metrics PORT), "
                + "for the server and for stats alike"
        case .anyPort:
            "metrics_port is 0 (any free port): give the port the server logged (\"metrics on HOST:PORT\") "
                + "with --metrics PORT"
        case .notRunning(let address, let cause):
            "no metrics at \(address) (\(cause)): is blogd serve running, with metrics on?"
        case .badReply(let address, let status):
            "\(address) did not answer \(MetricsAddress.path) (\(status.map { "HTTP \($0)" } ?? "no HTTP reply")): "
                + "is it blogd's metrics port?"
        }
    }
}
