import BlogWire
#if canImport(Glibc)
import Glibc
#endif

/// Threads sending one kind of request as fast as the replies come, a new
/// connection each time, as many clients of the original app would.
struct RequestFlood: Attacker {
    enum Request: Sendable {
        /// `login:<random name>:x`: a name nobody has, so no per-name
        /// throttle trips, yet the server hashes a password for each.
        case login
        /// `register:<random name>:pw`: a password hash, a user and a page each.
        case register
        /// `newpost:USER:Big N:<"...">` to each thread's own user, logged
        /// in by registering from the attacker's address during set-up.
        case bigPosts(users: [String], password: String)
    }

    let request: Request
    let threads: Int
    let route: Route
    let timeout: Double

    /// The content of every big post: as many `"` as fit the server's
    /// default message limit with the rest of the message, at most
    /// `AttackKind.bigPostContentBytes`.
    static let bigContent = String(repeating: "\"", count: AttackKind.bigPostContentBytes)

    /// What the report calls one request.
    var noun: String {
        switch request {
        case .login: "logins"
        case .register: "registrations"
        case .bigPosts: "posts"
        }
    }

    func setUp() throws(BenchFailure) {
        guard case .bigPosts(let users, let password) = request else { return }
        for user in users {
            let outcome = OneShot.exchange(Frame.encode("register", [user, password]), on: route, timeout: timeout)
            guard outcome != .reply(Reply.registered.rawValue) else { continue }
            let got = switch outcome {
            case .reply(let text): text
            case .failed(let failure): failure.reason
            case .cut: "cut off"
            }
            throw BenchFailure(message: "attacker: register \(user) from \(route.source.host): \(got)")
        }
    }

    /// The message of request number `counter` of `thread`.
    func message(thread: Int, counter: Int, random: inout SplitMix64) -> [UInt8] {
        switch request {
        case .login:
            return Frame.encode("login", [RandomName.make("x", using: &random), "x"])
        case .register:
            return Frame.encode("register", [RandomName.make("r", using: &random), "pw"])
        case .bigPosts(let users, _):
            let head = Frame.encode("newpost", [users[thread % users.count], "Big \(counter)", ""]).dropLast(Frame.terminator.count)
            // The whole message must fit the limit, or the server answers
            // err:SIZE without storing anything.
            let room = Frame.defaultMaxMessageBytes - head.count
            return Array(head) + Self.bigContent.utf8.prefix(room) + Frame.terminator
        }
    }

    func run(thread: Int, window: AttackWindow) -> AttackTally {
        var tally = AttackTally()
        var random = SplitMix64(seed: .random(in: .min ... .max))
        var counter = 0
        while !window.isOver {
            counter += 1
            let message = message(thread: thread, counter: counter, random: &random)
            tally.add("requests")
            tally.add("bytes sent", message.count)
            switch OneShot.exchange(message, on: route, window: window, timeout: timeout).outcome {
            case .reply(let text):
                tally.add("reply \(text)")
            case .failed(let failure):
                tally.add("failed \(failure.reason)")
                if case .connect = failure { usleep(10_000) }
            case .cut:
                tally.add("cut at end")
            }
        }
        return tally
    }

    func summary(of tally: AttackTally) -> String {
        let connectFailures = tally.total(startingWith: "failed connect ")
        var parts = ["\(threads) threads", "\(grouped(tally["requests"] - connectFailures)) \(noun) sent"]
        if case .bigPosts = request, tally["requests"] > 0 {
            parts[1] += " (\(grouped(tally["bytes sent"] / tally["requests"])) bytes each)"
        }
        parts += tally.entries(startingWith: "reply ").map { "\(grouped($0.count)) \($0.name)" }
        let failures = tally.total(startingWith: "failed ")
        if failures > 0 { parts.append("\(grouped(failures)) failed") }
        return parts.joined(separator: ", ")
    }
}
