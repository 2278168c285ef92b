import BlogModel
import BlogWire
import Metrics
import Synchronization

/// Requests by command and reply (`blogd_requests_total`), and how long
/// the ones a lane carried out took, by command
/// (`blogd_request_duration_seconds`).
///
/// A counter is made the first time its pair is seen, and kept in a
/// table indexed by `RequestLabels`: the pairs that never happen (a
/// `register` answered `del:OK`) never show, and a request costs a lock
/// held for an array read, then the counter's own increment.
///
///     RequestMetrics.shared.record(.login, .loggedIn, seconds: 0.104)
///     RequestMetrics.shared.record(nil, .unknownCommand, seconds: nil)
final class RequestMetrics: Sendable {
    /// The server's; made from the metrics system in force at its first
    /// use (blogd bootstraps it before it starts the server).
    static let shared = RequestMetrics()

    private let counters: Mutex<[Counter?]>
    private let durations: [Timer]

    init() {
        counters = Mutex(Array(repeating: nil, count: RequestLabels.commands.count * RequestLabels.replies.count))
        durations = Request.Command.allCases.map {
            Timer(label: MetricName.requestDuration, dimensions: [("command", $0.rawValue)])
        }
    }

    /// A request answered: `command` nil for a message naming none;
    /// `seconds` from its complete message to its reply, when a lane
    /// carried it out.
    func record(_ command: Request.Command?, _ reply: Reply, seconds: Double?) {
        let index = RequestLabels.command(command)
        counter(command: index, reply: RequestLabels.reply(reply)).increment()
        if let seconds, index < durations.count {
            durations[index].recordNanoseconds(Int64(seconds * 1e9))
        }
    }

    /// A reply the connection gave with no message behind it (`err:SIZE`,
    /// `err:TIME`, `err:ARGS` for a message cut off).
    func recordWithoutMessage(_ reply: Reply) {
        counter(command: RequestLabels.noCommand, reply: RequestLabels.reply(reply)).increment()
    }

    private func counter(command: Int, reply: Int) -> Counter {
        let slot = command * RequestLabels.replies.count + reply
        return counters.withLock { table in
            if let counter = table[slot] { return counter }
            let counter = Counter(label: MetricName.requests, dimensions: [
                ("command", RequestLabels.commands[command]), ("reply", RequestLabels.replies[reply])])
            table[slot] = counter
            return counter
        }
    }
}
