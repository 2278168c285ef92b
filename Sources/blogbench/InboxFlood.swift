import BlogSockets
import Crypto
import Foundation

/// ActivityPub inbox POSTs as fast as the server takes them, from every
/// attacker address in turn: each thread posts a `Like` of `--target` to
/// the shared inbox `/ap/inbox`, correct on its face (a `Digest` of the
/// body, a fresh `Date`, a draft-cavage `Signature` over
/// `(request-target) host date digest`), but signed with a key id no one
/// has seen: a new actor on `--key-host` for every request, so no cached
/// key helps. Only fetching the key could tell the signature is bad; what
/// the attack measures is that the server's per-address and per-host
/// budgets bound those fetches, and the blog port's clients do not notice.
struct InboxFlood: Attacker {
    let route: Route
    let threads: Int
    /// One of the server's posts (`BASE/ap/NAME/posts/ID` or its page).
    let target: String
    /// Where the key ids point (`http://127.0.0.1:9` by default: nothing
    /// answers there, and the fetcher refuses it unless private addresses
    /// are allowed).
    let keyHost: String
    let timeout: Double

    func request(thread: Int, counter: Int) -> [UInt8] {
        let actor = "\(keyHost)/flood/\(thread)/\(counter)"
        let body = #"{"@context":"https://www.w3.org/ns/activitystreams","type":"Like","id":"\#(actor)/like","actor":"\#(actor)","object":"\#(target)"}"#
        let digest = "SHA-256=" + Data(SHA256.hash(data: Data(body.utf8))).base64EncodedString()
        let date = Self.httpDate()
        // A signature of the right shape and length; only the key tells it is wrong.
        let signature = Data((0..<256).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ counter) }).base64EncodedString()
        let head = "POST /ap/inbox HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/activity+json\r\n"
            + "Date: \(date)\r\nDigest: \(digest)\r\n"
            + "Signature: keyId=\"\(actor)#main-key\",algorithm=\"rsa-sha256\","
            + "headers=\"(request-target) host date digest\",signature=\"\(signature)\"\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        return Array((head + body).utf8)
    }

    static func httpDate(_ date: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
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
