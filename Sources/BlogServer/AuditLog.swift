import BlogCore
import BlogWire
import Dispatch
import Logging
import Synchronization

/// One log line per request: peer, command, user, reply and duration, and
/// never a password or a post's text.
///
/// Lines are formatted and written off the event loop: the loop only
/// queues an entry (a few words), and one serial queue logs them in order.
/// Formatting a line costs more than answering `err:CMD` does.
struct AuditLog: Sendable {
    private struct Entry: Sendable {
        var logger: Logger
        var outcome: Outcome
        var peer: String
        var seconds: Double?
    }

    private final class Pending: Sendable {
        let entries = Mutex<[Entry]>([])
        let queue = DispatchQueue(label: "blogd.audit")
    }

    /// One queue for the process: entries of every server, in order.
    private static let pending = Pending()

    let logger: Logger

    /// A request the service or the router answered.
    func request(_ outcome: Outcome, peer: String, seconds: Double?) {
        let entry = Entry(logger: logger, outcome: outcome, peer: peer, seconds: seconds)
        let first = Self.pending.entries.withLock { entries in
            defer { entries.append(entry) }
            return entries.isEmpty
        }
        if first { Self.pending.queue.async { Self.drain() } }
    }

    /// A reply of the connection's own: a limit the peer ran into.
    func refused(_ reply: Reply, peer: String) {
        if reply == .busy {
            logger.notice("connection limit reached", metadata: ["peer": "\(peer)"])
        } else {
            request(Outcome(reply: reply), peer: peer, seconds: nil)
        }
    }

    /// Returns once every entry queued so far is logged.
    func flush() {
        Self.pending.queue.sync { Self.drain() }
    }

    private static func drain() {
        let entries = pending.entries.withLock { entries in
            defer { entries.removeAll(keepingCapacity: true) }
            return entries
        }
        for entry in entries { log(entry) }
    }

    private static func log(_ entry: Entry) {
        var metadata: Logger.Metadata = ["peer": "\(entry.peer)", "reply": "\(entry.outcome.reply.rawValue)"]
        if let command = entry.outcome.command { metadata["command"] = "\(command)" }
        if let user = entry.outcome.user { metadata["user"] = "\(user)" }
        if let seconds = entry.seconds { metadata["ms"] = "\((seconds * 1_000_000).rounded() / 1000)" }
        entry.logger.info("request", metadata: metadata)
    }
}
