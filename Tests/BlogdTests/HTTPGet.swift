import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A reply read off the wire.
struct HTTPReply {
    var status: Int
    var headers: [String: String]
    var body: String
}

/// Sends one raw HTTP/1.1 request (the path exactly as given, no client
/// normalisation) and reads the reply until the server closes.
func httpRequest(port: Int, method: String = "GET", path: String) throws -> HTTPReply {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
    var wait = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw HTTPFailure.connect(errno) }
    let request = Array("\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var data: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { break }
        data += chunk[0..<n]
    }
    let text = String(decoding: data, as: UTF8.self)
    guard let split = text.range(of: "\r\n\r\n") else { throw HTTPFailure.malformed(text) }
    let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
    guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ")[1]) else {
        throw HTTPFailure.malformed(text)
    }
    var headers: [String: String] = [:]
    for line in head.dropFirst() {
        let parts = line.split(separator: ":", maxSplits: 1)
        if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
    }
    return HTTPReply(status: status, headers: headers, body: String(text[split.upperBound...]))
}

enum HTTPFailure: Error {
    case connect(Int32)
    case malformed(String)
}
