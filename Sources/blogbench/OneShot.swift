import BlogSockets
import BlogWire
import Synchronization

/// Where connections go, and the local addresses they come from: the client
/// and the attacker differ only in that, and the server tells them apart by it.
///
/// An attacker may come from many addresses at once (`--attacker-addresses`):
/// each connection then takes the next source in turn, so a crowd of
/// addresses shares the load evenly, each under its own per-address limits.
struct Route: Sendable {
    let server: SocketAddress
    /// Bound before connecting, port 0 (any free one); never empty.
    let sources: [SocketAddress]
    private let turn = SourceTurn()

    init(server: SocketAddress, source: SocketAddress) {
        self.init(server: server, sources: [source])
    }

    init(server: SocketAddress, sources: [SocketAddress]) {
        precondition(!sources.isEmpty)
        self.server = server
        self.sources = sources
    }

    /// The first source: what reports name.
    var source: SocketAddress { sources[0] }

    /// The source of the next connection.
    func nextSource() -> SocketAddress {
        sources.count == 1 ? sources[0] : sources[turn.next() % sources.count]
    }

    func connect(until deadline: Deadline) throws(SocketError) -> Socket {
        try Socket.connect(to: server, from: nextSource(), until: deadline)
    }
}

/// A counter shared by every copy of a route and every thread using it.
private final class SourceTurn: Sendable {
    private let counter = Atomic<Int>(0)

    func next() -> Int { counter.add(1, ordering: .relaxed).oldValue }
}

/// How one request on a connection of its own ended.
enum OneShotOutcome: Sendable, Equatable {
    /// The first reply's text; " (+ more)" when more came after it.
    case reply(String)
    case failed(ChurnFailure)
    /// The run ended while it waited: neither an answer nor a failure.
    case cut
}

/// The original client's way of asking: connect, send one message, read
/// until the server closes, close.
enum OneShot {
    /// Sends `message` on a new connection of `route` and waits for the
    /// reply, at most `timeout` seconds in all and never past the window's
    /// end. Timed from connect to close, as the original client waits.
    static func exchange(_ message: [UInt8], on route: Route, window: AttackWindow,
                         timeout: Double) -> (outcome: OneShotOutcome, nanoseconds: UInt64) {
        let start = monotonicNanoseconds()
        let (deadline, cut) = window.deadline(timeout: timeout)
        let outcome = exchange(message, on: route, until: deadline, cut: cut)
        return (outcome, monotonicNanoseconds() - start)
    }

    /// `GET path` on a connection of its own, read to the end: the status
    /// line is the outcome's reply. Timed as `exchange` is.
    static func get(_ path: String, on route: Route, window: AttackWindow,
                    timeout: Double) -> (outcome: OneShotOutcome, nanoseconds: UInt64) {
        let start = monotonicNanoseconds()
        let (deadline, cut) = window.deadline(timeout: timeout)
        let request = Array("GET \(path) HTTP/1.1\r\nHost: blogbench\r\nConnection: close\r\n\r\n".utf8)
        let outcome: OneShotOutcome
        do throws(SocketError) {
            let socket = try route.connect(until: deadline)
            defer { socket.close() }
            try socket.sendAll(request, until: deadline)
            let received = try socket.receiveUntilClosed(until: deadline, limit: 16 << 20)
            if let end = received.firstRange(of: [13, 10]) {
                outcome = .reply(ReplyText.of(Array(received[..<end.lowerBound])))
            } else {
                outcome = .failed(received.isEmpty ? .noReply : .incompleteReply)
            }
        } catch {
            let failure = ChurnFailure(error)
            if cut, case .timeout = failure { outcome = .cut } else { outcome = .failed(failure) }
        }
        return (outcome, monotonicNanoseconds() - start)
    }

    /// For set-up, before the window opens: `timeout` seconds.
    static func exchange(_ message: [UInt8], on route: Route, timeout: Double) -> OneShotOutcome {
        exchange(message, on: route, until: Deadline(seconds: timeout), cut: false)
    }

    private static func exchange(_ message: [UInt8], on route: Route, until deadline: Deadline, cut: Bool) -> OneShotOutcome {
        let received: [UInt8]
        do throws(SocketError) {
            let socket = try route.connect(until: deadline)
            defer { socket.close() }
            try socket.sendAll(message, until: deadline)
            received = try socket.receiveUntilClosed(until: deadline)
        } catch {
            let failure = ChurnFailure(error)
            if cut, case .timeout = failure { return .cut }
            return .failed(failure)
        }
        return judge(received)
    }

    /// The first message of what the server sent before it closed.
    static func judge(_ received: [UInt8]) -> OneShotOutcome {
        var decoder = FrameDecoder()
        decoder.append(received)
        guard case .message(let body)? = decoder.next() else {
            return .failed(received.isEmpty ? .noReply : .incompleteReply)
        }
        let more = decoder.next() != nil || decoder.hasPartialMessage
        return .reply(ReplyText.of(body) + (more ? " (+ more)" : ""))
    }
}
