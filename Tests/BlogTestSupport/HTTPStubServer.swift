import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 (a free port), one request per
/// connection, answered by `handler` on the server's own thread: the other
/// side of outgoing requests in tests (a Webmention receiver, a photo
/// host). Every request is kept, in order.
///
///     let server = try HTTPStubServer { request in
///         .init(status: 200, headers: [("Link", "</wm>; rel=webmention")], body: Array("hi".utf8))
///     }
///     defer { server.stop() }
///     server.url("/post")   // http://127.0.0.1:PORT/post
public final class HTTPStubServer: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// Names lowercased.
        public var headers: [String: String]
        public var body: [UInt8]

        /// The body's form fields (`application/x-www-form-urlencoded`).
        public var form: [String: String] {
            var fields: [String: String] = [:]
            for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
                }
                fields[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            return fields
        }
    }

    public struct Response: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]

        public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        public static func html(_ text: String, headers: [(String, String)] = []) -> Response {
            Response(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")] + headers, body: Array(text.utf8))
        }
    }

    public let port: Int
    private let fd: Int32
    private let handler: @Sendable (Request) -> Response
    private let received = Mutex<[Request]>([])
    private let done = DispatchSemaphore(value: 0)

    public init(handler: @escaping @Sendable (Request) -> Response) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.handler = handler
        let thread = Thread { [self] in self.serve() }
        thread.name = "loopback-http"
        thread.start()
    }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Every request so far, in order.
    public var requests: [Request] { received.withLock { $0 } }

    /// Stops accepting, and waits for the thread to end.
    public func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        done.wait()
        close(fd)
    }

    private func serve() {
        defer { done.signal() }
        while true {
            let client = accept(fd, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if let request = Self.read(client) {
                received.withLock { $0.append(request) }
                Self.write(handler(request), to: client)
            }
            close(client)
        }
    }

    private static func read(_ client: Int32) -> Request? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var headerEnd: Int?
        while headerEnd == nil {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            bytes += buffer[0..<count]
            headerEnd = find([13, 10, 13, 10], in: bytes)
        }
        guard let headerEnd else { return nil }
        let head = String(decoding: bytes[0..<headerEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = head[0].split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var body = Array(bytes[(headerEnd + 4)...])
        while body.count < length {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            body += buffer[0..<count]
        }
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers,
                       body: Array(body.prefix(length)))
    }

    private static func write(_ response: Response, to client: Int32) {
        var head = "HTTP/1.1 \(response.status) Status\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + response.body
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where Array(haystack[index..<index + needle.count]) == needle {
            return index
        }
        return nil
    }
}
