import BlogSockets
import Foundation

/// Photo uploads as fast as the server takes them: each thread posts
/// `photo` to Micropub's media endpoint (`POST /micropub/media`,
/// multipart, with a bearer token), reads the status line, and starts
/// again on a new connection. Every upload costs the server a decode and
/// two encodes unless its budgets refuse it first.
struct UploadFlood: Attacker {
    let route: Route
    let threads: Int
    let photo: [UInt8]
    let token: String
    let timeout: Double

    static let boundary = "blogbenchUploadFlood"

    /// The whole request, made once.
    var request: [UInt8] {
        var body = Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"flood.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
        body += photo + Array("\r\n--\(Self.boundary)--\r\n".utf8)
        let head = "POST /micropub/media HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: multipart/form-data; boundary=\(Self.boundary)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    func run(thread: Int, window: AttackWindow) -> AttackTally {
        let bytes = request
        return StatusLineFlood.run(route: route, window: window, timeout: timeout) { _ in bytes }
    }

    func summary(of tally: AttackTally) -> String {
        var parts = ["\(threads) uploaders", "\(photo.count / 1024) KiB photo",
                     String(format: "%.1f MiB sent", Double(tally["bytes sent"]) / 1_048_576)]
        parts += tally.entries(startingWith: "response ").map { "\(grouped($0.count)) \($0.name)" }
        parts += tally.entries(startingWith: "failed ").map { "\(grouped($0.count)) failed \($0.name)" }
        return parts.joined(separator: ", ")
    }
}
