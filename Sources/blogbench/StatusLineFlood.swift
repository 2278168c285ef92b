import BlogSockets
#if canImport(Glibc)
import Glibc
#endif

/// The loop of the HTTP floods that send one request a connection and
/// read its status line (`upload-flood`, `webmention-flood`): connect,
/// send, tally the status line (or the failure), again until the window
/// ends. A refused connect pauses 10 ms rather than spin a core the
/// server needs.
enum StatusLineFlood {
    /// `request(n)` is the n-th request of this thread (from 1).
    static func run(route: Route, window: AttackWindow, timeout: Double,
                    request: (_ counter: Int) -> [UInt8]) -> AttackTally {
        var tally = AttackTally()
        var counter = 0
        while !window.isOver {
            counter += 1
            let (deadline, cut) = window.deadline(timeout: timeout)
            let socket: Socket
            do {
                socket = try route.connect(until: deadline)
            } catch {
                tally.add("failed \(ChurnFailure(error).reason)")
                usleep(10_000)
                continue
            }
            defer { socket.close() }
            do throws(SocketError) {
                let bytes = request(counter)
                try socket.sendAll(bytes, until: deadline)
                tally.add("bytes sent", bytes.count)
                if let line = try socket.receiveFirstLine(until: deadline) {
                    tally.add("response \(line)")
                } else {
                    tally.add("closed by server without a response")
                }
            } catch {
                let failure = ChurnFailure(error)
                if cut, case .timeout = failure { tally.add("cut at end") } else { tally.add("failed \(failure.reason)") }
            }
        }
        return tally
    }
}
