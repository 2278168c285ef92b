import BlogSockets
import BlogWire
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Webmentions as fast as the server takes them, from every attacker
/// address in turn: each thread posts `source=…&target=…` to the
/// Webmention endpoint, reads the status line, and starts again on a new
/// connection. Each source is new (`<source-base>/<thread>/<n>`), so none
/// is a re-send the server could fold into an earlier one; every accepted
/// mention is a durable job and, later, a fetch of its source. The default
/// source base is TEST-NET-1 (RFC 5737), where nothing answers: the
/// worst case for the fetches, each held to the server's time limit.
struct WebmentionFlood: Attacker {
    let route: Route
    let threads: Int
    /// A post page of the server's, found by `findTarget`.
    let target: String
    let sourceBase: String
    let path: String
    let timeout: Double

    func request(thread: Int, counter: Int) -> [UInt8] {
        let source = "\(sourceBase)\(thread)/\(counter)"
        let body = "source=\(Self.formEncoded(source))&target=\(Self.formEncoded(target))"
        let head = "POST \(path) HTTP/1.1\r\nHost: blogbench\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        return Array((head + body).utf8)
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
        var parts = ["\(threads) senders", "target \(target)"]
        parts += tally.entries(startingWith: "response ").map { "\(grouped($0.count)) \($0.name)" }
        parts += tally.entries(startingWith: "failed ").map { "\(grouped($0.count)) failed \($0.name)" }
        return parts.joined(separator: ", ")
    }

    /// A post of `user`'s to aim at: posts one over the blog port (the
    /// user is logged in), then reads the blog's main page for its id.
    static func findTarget(user: String, blog: Route, pages: Route, base: String, timeout: Double) throws(BenchFailure) -> String {
        switch OneShot.exchange(Frame.encode("newpost", [user, "Mention me", "A post for the webmention flood."]),
                                on: blog, timeout: timeout) {
        case .reply(Reply.posted.rawValue): break
        case .reply(let text): throw BenchFailure(message: "webmention-flood: the target post got \(text)")
        case .failed(let failure): throw BenchFailure(message: "webmention-flood: the target post: \(failure.reason)")
        case .cut: throw BenchFailure(message: "webmention-flood: the target post was cut off")
        }
        let page: [UInt8]
        do throws(SocketError) {
            let deadline = Deadline(seconds: timeout)
            let socket = try pages.connect(until: deadline)
            defer { socket.close() }
            try socket.sendAll(Array("GET /\(user).html HTTP/1.1\r\nHost: blogbench\r\nConnection: close\r\n\r\n".utf8),
                               until: deadline)
            page = try socket.receiveUntilClosed(until: deadline, limit: 4 << 20)
        } catch {
            throw BenchFailure(message: "webmention-flood: reading /\(user).html: \(ChurnFailure(error).reason)")
        }
        let marker = Array("id=\"post-".utf8)
        guard let start = page.firstRange(of: marker)?.upperBound else {
            throw BenchFailure(message: "webmention-flood: /\(user).html shows no post")
        }
        let digits = page[start...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        return "\(base)\(user)/\(String(decoding: digits, as: UTF8.self)).html"
    }

    /// `application/x-www-form-urlencoded`: all but the unreserved bytes
    /// percent-encoded.
    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// Where `webmention-flood` aims: the endpoint's path, the post it
/// mentions, the sources it claims.
struct WebmentionAim: Sendable {
    var path: String
    var target: String
    var sourceBase: String
}
