import BlogSockets
import Foundation

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
        StatusLineFlood.run(route: route, window: window, timeout: timeout) { request(thread: thread, counter: $0) }
    }

    func summary(of tally: AttackTally) -> String {
        var parts = ["\(threads) senders"]
        parts += tally.entries(startingWith: "response ").map { "\(grouped($0.count)) \($0.name)" }
        parts += tally.entries(startingWith: "failed ").map { "\(grouped($0.count)) failed \($0.name)" }
        return parts.joined(separator: ", ")
    }
}
