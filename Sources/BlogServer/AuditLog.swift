import BlogCore
import BlogWire
import BlogSockets
import Logging

/// One log line per request: peer, command, user, reply and duration, and
/// never a password or a post's text.
struct AuditLog: Sendable {
    let logger: Logger

    /// A request the service or the router answered.
    func request(_ outcome: Outcome, peer: String, seconds: Double?) {
        var metadata: Logger.Metadata = ["peer": "\(peer)", "reply": "\(outcome.reply.rawValue)"]
        if let command = outcome.command { metadata["command"] = "\(command)" }
        if let user = outcome.user { metadata["user"] = "\(user)" }
        if let seconds { metadata["ms"] = "\((seconds * 1_000_000).rounded() / 1000)" }
        logger.info("request", metadata: metadata)
    }

    /// A reply of the connection's own: a limit the peer ran into.
    func refused(_ reply: Reply, peer: String) {
        if reply == .busy {
            logger.notice("connection limit reached", metadata: ["peer": "\(peer)"])
        } else {
            request(Outcome(reply: reply), peer: peer, seconds: nil)
        }
    }
}
