import BlogSockets
import BlogWire
#if canImport(Glibc)
import Glibc
#endif

/// The outcome of sending one message.
enum Exchange {
    /// The reply's text, terminator removed.
    case reply(String)
    /// No reply, for a connection-level reason.
    case failed(WireError)
}

/// One simulated client: its user, its connection, its request loop.
///
/// Used by one thread at a time (each phase runs it on its own thread and
/// joins before the next), hence `@unchecked Sendable` without locks.
final class BenchClient: @unchecked Sendable {
    let index: Int
    private let address: SocketAddress
    private let keepAlive: Bool
    private let timeout: Double
    private let workload: Workload
    /// With keep-alive: the open connection, reused across requests and
    /// phases (so a login during preparation also counts on it).
    private var connection: WireConnection?
    private var random: SplitMix64
    /// Requests made so far; makes registered names and titles unique.
    private var counter = 0

    /// After these replies the server closes the connection.
    private static let closingReplies = Set([Reply.tooLarge, .timedOut, .busy].map(\.rawValue))

    init(index: Int, address: SocketAddress, keepAlive: Bool, timeout: Double, workload: Workload, seed: UInt64) {
        self.index = index
        self.address = address
        self.keepAlive = keepAlive
        self.timeout = timeout
        self.workload = workload
        self.random = SplitMix64(seed: seed &+ UInt64(index))
    }

    // MARK: Preparation (not measured)

    /// Registers this client's user (or finds it there), logs it in when
    /// posting needs the login lease, and adds the prefill posts.
    func prepare() throws(BenchFailure) {
        guard workload.needsUsers else { return }
        let user = workload.userName(client: index)
        let registered = try expect(workload.register(client: index), [.registered, .nameTaken], doing: "register \(user)")
        if workload.needsLogin || registered == .nameTaken {
            let hint = registered == .nameTaken ? " (the name existed already: another --user-prefix?)" : ""
            try expect(workload.login(client: index), [.loggedIn], doing: "login \(user)\(hint)")
        }
        for _ in 0..<workload.prefillPosts {
            counter += 1
            try expect(workload.prefillPost(client: index, counter: counter), [.posted], doing: "prefill post for \(user)")
        }
    }

    @discardableResult
    private func expect(_ message: [UInt8], _ accepted: [Reply], doing what: String) throws(BenchFailure) -> Reply {
        switch exchange(message).outcome {
        case .failed(let error):
            throw BenchFailure(message: "client \(index): \(what): \(error.message)")
        case .reply(let text):
            guard let reply = Reply(rawValue: text), accepted.contains(reply) else {
                throw BenchFailure(message: "client \(index): \(what): unexpected reply \(text)")
            }
            return reply
        }
    }

    // MARK: Load

    /// Sends requests until `deadline` (monotonic ns) passes or `tickets`
    /// run out, and returns what it measured.
    func run(until deadline: UInt64?, tickets: Tickets?) -> ClientStats {
        // Between phases this client may have sat idle (waiting for slower
        // clients to finish preparing) past the server's idle timeout.
        if connection?.isStale == true { dropConnection() }
        var stats = ClientStats()
        while true {
            if let deadline, monotonicNanoseconds() >= deadline { break }
            if let tickets, !tickets.take() { break }
            let kind = workload.mix.pick(random.next())
            counter += 1
            let (outcome, nanoseconds) = exchange(workload.message(kind, client: index, counter: counter))
            switch outcome {
            case .reply(let text):
                stats.record(reply: text, expected: kind.expectedReply, microseconds: nanoseconds / 1000)
            case .failed(let error):
                stats.record(error: error)
                // A dead or refusing server answers at once: pause so the
                // loop counts failures instead of spinning a core on them.
                usleep(10_000)
            }
        }
        return stats
    }

    // MARK: One request

    /// Sends `message`, waits for the reply, and times it: from connect
    /// (one connection per request) or from send (keep-alive).
    func exchange(_ message: [UInt8]) -> (outcome: Exchange, nanoseconds: UInt64) {
        keepAlive ? exchangeKeepAlive(message) : exchangeOnce(message)
    }

    /// The original client's way: connect, send, read until the server
    /// closes, close. Timed until the close, as that client waits for it.
    private func exchangeOnce(_ message: [UInt8]) -> (outcome: Exchange, nanoseconds: UInt64) {
        let start = monotonicNanoseconds()
        do throws(WireError) {
            let connection = try WireConnection(to: address, timeout: timeout)
            try connection.send(message)
            let replies = try connection.receiveUntilClosed()
            let elapsed = monotonicNanoseconds() - start
            var text = Self.text(replies[0])
            // More than one reply to one message is a server bug worth seeing.
            if replies.count > 1 || connection.hasTrailingBytes { text += " (+ more after it)" }
            return (.reply(text), elapsed)
        } catch {
            return (.failed(error), monotonicNanoseconds() - start)
        }
    }

    /// Many messages per connection: timed from send to the reply; a
    /// (re)connect is not part of any request's time.
    private func exchangeKeepAlive(_ message: [UInt8]) -> (outcome: Exchange, nanoseconds: UInt64) {
        var start = monotonicNanoseconds()
        do throws(WireError) {
            let connection: WireConnection
            if let open = self.connection {
                connection = open
            } else {
                connection = try WireConnection(to: address, timeout: timeout)
                self.connection = connection
                start = monotonicNanoseconds()
            }
            try connection.send(message)
            let text = Self.text(try connection.receiveMessage())
            let elapsed = monotonicNanoseconds() - start
            if Self.closingReplies.contains(text) { dropConnection() }
            return (.reply(text), elapsed)
        } catch {
            // The connection's state is unknown now (half a reply may be
            // in flight): start over on a fresh one.
            dropConnection()
            return (.failed(error), monotonicNanoseconds() - start)
        }
    }

    private func dropConnection() {
        connection?.close()
        connection = nil
    }

    /// A reply's text for counting; long or binary replies are shortened
    /// so one odd reply cannot flood the report.
    static func text(_ body: [UInt8]) -> String {
        guard let text = String(validating: body, as: UTF8.self) else { return "<\(body.count) bytes, not UTF-8>" }
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
