import BlogCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small blocking HTTP/1.1 client for `http://127.0.0.1:PORT` URLs, as
/// an `OutgoingHTTP` for tests of what sends: redirects followed (3),
/// bodies cut at `maxBytes`, and loopback refused unless
/// `allowPrivateAddresses` (as the server's fetcher refuses it).
public struct PlainHTTPClient: OutgoingHTTP {
    public var allowPrivateAddresses: Bool

    public init(allowPrivateAddresses: Bool = true) {
        self.allowPrivateAddresses = allowPrivateAddresses
    }

    public func get(_ url: String, headers: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        try await exchange("GET", url, headers: headers, body: [], maxBytes: maxBytes, redirects: 3)
    }

    public func postForm(_ url: String, fields: [(String, String)], maxBytes: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        try await exchange("POST", url, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                           body: Array(FormBody.encode(fields).utf8), maxBytes: maxBytes, redirects: 0)
    }

    private func exchange(_ method: String, _ url: String, headers: [(String, String)], body: [UInt8], maxBytes: Int,
                          redirects: Int) async throws(OutgoingHTTPError) -> HTTPAnswer {
        guard let parsed = URL(string: url), parsed.scheme == "http", let host = parsed.host, let port = parsed.port else {
            throw .refused("not an http URL with a port: \(url)")
        }
        guard allowPrivateAddresses || !host.hasPrefix("127.") else {
            throw .refused("\(host) is an address outgoing fetches may not reach")
        }
        var path = parsed.path.isEmpty ? "/" : parsed.path
        if let query = parsed.query { path += "?" + query }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "Content-Length: \(body.count)\r\n\r\n"
        let bytes = Array(request.utf8) + body
        let result: Result<[UInt8], OutgoingHTTPError> = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: Self.roundTrip(host, port, bytes, maxBytes: maxBytes)) }
            thread.start()
        }
        let raw = try result.get()
        guard let end = Self.find([13, 10, 13, 10], in: raw) else { throw .failed("no answer head") }
        let lines = String(decoding: raw[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        var answerHeaders: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            answerHeaders[name] = answerHeaders[name].map { $0 + ", " + value } ?? value
        }
        let answerBody = Array(raw[(end + 4)...])
        guard answerBody.count <= maxBytes else { throw .refused("the response is over \(maxBytes) bytes") }
        if (300..<400).contains(status), redirects > 0, let location = answerHeaders["location"],
           let next = URL(string: location, relativeTo: parsed)?.absoluteString {
            return try await exchange(method, next, headers: headers, body: body, maxBytes: maxBytes,
                                      redirects: redirects - 1)
        }
        return HTTPAnswer(url: url, status: status, headers: answerHeaders, body: answerBody)
    }

    private static func roundTrip(_ host: String, _ port: Int, _ request: [UInt8],
                                  maxBytes: Int) -> Result<[UInt8], OutgoingHTTPError> {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return .failure(.failed("socket")) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return .failure(.failed("cannot connect to \(host):\(port)")) }
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return .failure(.failed("send")) }
            sent += count
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { break }
            guard count > 0 else { return .failure(.failed("receive")) }
            answer += buffer[0..<count]
            // The head plus more than the limit: no need to read on.
            if answer.count > maxBytes + 65_536 { break }
        }
        return .success(answer)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where Array(haystack[index..<index + needle.count]) == needle {
            return index
        }
        return nil
    }
}
