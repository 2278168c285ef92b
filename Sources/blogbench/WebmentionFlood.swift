import BlogSockets
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Webmentions as fast as the server takes them, from every attacker
/// address in turn: each thread posts `source=…&target=…` to
/// `/webmention`, reads the status line, and starts again on a new
/// connection. Each source is new (`/flood/THREAD/N`) and on a private
/// address, so every accepted one costs the server a commit, a queued
/// verification and a refused fetch; the per-address budget answers the
/// rest `429`.
struct WebmentionFlood: Attacker {
    let route: Route
    let threads: Int
    /// A post page of the server (`--target`); without one the server
    /// refuses each at once (`400`).
    let target: String
    let timeout: Double

    func request(thread: Int, counter: Int) -> [UInt8] {
        let source = "http://127.0.0.1:9/flood/\(thread)/\(counter)"
        let body = "source=\(Self.encode(source))&target=\(Self.encode(target))"
        let head = "POST /webmention HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        return Array((head + body).utf8)
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    func run(thread: Int, window: AttackWindow) -> AttackTally {
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
                try socket.sendAll(request(thread: thread, counter: counter), until: deadline)
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

    func summary(of tally: AttackTally) -> String {
        var parts = ["\(threads) senders"]
        parts += tally.entries(startingWith: "response ").map { "\(grouped($0.count)) \($0.name)" }
        parts += tally.entries(startingWith: "failed ").map { "\(grouped($0.count)) failed \($0.name)" }
        return parts.joined(separator: ", ")
    }
}
