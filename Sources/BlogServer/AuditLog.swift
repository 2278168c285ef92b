import BlogCore
import BlogWire
import Dispatch
import Logging
import Synchronization

/// One log line per request: peer, command, user, reply and duration, and
/// never a password or a post's text.
///
/// Lines are formatted and written off the event loop: the loop only
/// queues an entry (a few words), and one serial queue logs them in order,
/// those of a few milliseconds together.
/// Formatting a line costs more than answering `err:CMD` does, so a client
/// pipelining unknown commands outpaces it: at most `capacity` entries
/// wait, and past that they are dropped and counted, never blocking the
/// loop; an "audit lines dropped" line with the count follows once the
/// log catches up.
struct AuditLog: Sendable {
    private struct Entry: Sendable {
        var logger: Logger
        var outcome: Outcome
        var peer: String
        var seconds: Double?
    }

    private final class Pending: Sendable {
        let entries = Mutex<(waiting: [Entry], dropped: Int, droppedTotal: Int)>(([], 0, 0))
        let queue = DispatchQueue(label: "blogd.audit")
    }

    /// Entries that may wait to be logged.
    static let capacity = 10_000

    /// One queue for the process: entries of every server, in order.
    private static let pending = Pending()

    let logger: Logger

    /// A request the service or the router answered.
    func request(_ outcome: Outcome, peer: String, seconds: Double?) {
        let entry = Entry(logger: logger, outcome: outcome, peer: peer, seconds: seconds)
        let first = Self.pending.entries.withLock { entries -> Bool in
            guard entries.waiting.count < Self.capacity else {
                entries.dropped += 1
                entries.droppedTotal += 1
                return false
            }
            defer { entries.waiting.append(entry) }
            return entries.waiting.isEmpty
        }
        // The entries of the next few milliseconds wait with it and are
        // logged in one go: one wake-up of a thread per request (a lone
        // client's every post) cost as much as a fifth of the post path's
        // thread switches.
        if first { Self.pending.queue.asyncAfter(deadline: .now() + Self.gathering) { Self.drain() } }
    }

    /// How long the first entry waits for others to be logged with it.
    static let gathering = DispatchTimeInterval.milliseconds(5)

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

    /// Entries dropped since the start because too many were waiting.
    static var droppedCount: Int { pending.entries.withLock { $0.droppedTotal } }

    private static func drain() {
        let (entries, dropped) = pending.entries.withLock { entries in
            defer {
                entries.waiting.removeAll(keepingCapacity: entries.waiting.capacity <= capacity)
                entries.dropped = 0
            }
            return (entries.waiting, entries.dropped)
        }
        for entry in entries { log(entry) }
        if dropped > 0, let last = entries.last {
            last.logger.warning("audit lines dropped", metadata: ["count": "\(dropped)"])
        }
    }

    private static func log(_ entry: Entry) {
        var metadata: Logger.Metadata = ["peer": "\(entry.peer)", "reply": "\(entry.outcome.reply.rawValue)"]
        if let command = entry.outcome.command { metadata["command"] = "\(command)" }
        if let user = entry.outcome.user { metadata["user"] = "\(user)" }
        if let seconds = entry.seconds { metadata["ms"] = "\((seconds * 1_000_000).rounded() / 1000)" }
        entry.logger.info("request", metadata: metadata)
    }
}
