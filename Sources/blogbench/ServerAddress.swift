#if canImport(Glibc)
import Glibc
#endif

/// One resolved socket address of the server (IPv4 or IPv6).
///
/// Resolved once at start, so the measured requests pay for connecting,
/// never for name lookup.
struct ServerAddress: Sendable, CustomStringConvertible {
    let family: Int32
    /// The raw `sockaddr_in` / `sockaddr_in6` bytes getaddrinfo returned.
    let bytes: [UInt8]
    /// Numeric `host:port` (IPv6 in brackets), for messages and the report.
    let description: String

    /// Every address `host` stands for, in getaddrinfo's preferred order.
    static func resolve(host: String, port: Int) throws(BenchFailure) -> [ServerAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw BenchFailure(message: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [ServerAddress] = []
        for info in sequence(first: first, next: { $0.pointee.ai_next }) {
            let family = info.pointee.ai_family
            guard family == AF_INET || family == AF_INET6, let addr = info.pointee.ai_addr else { continue }
            let bytes = Array(UnsafeRawBufferPointer(start: addr, count: Int(info.pointee.ai_addrlen)))
            let address = ServerAddress(family: family, bytes: bytes, description: numeric(addr, info.pointee.ai_addrlen, family))
            if !addresses.contains(where: { $0.bytes == bytes }) { addresses.append(address) }
        }
        guard !addresses.isEmpty else { throw BenchFailure(message: "\(host) has no IPv4 or IPv6 address") }
        return addresses
    }

    /// Calls `body` with the address as a `sockaddr` pointer and length.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        bytes.withUnsafeBytes { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
    }

    private static func numeric(_ addr: UnsafeMutablePointer<sockaddr>, _ length: socklen_t, _ family: Int32) -> String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        guard getnameinfo(addr, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                          NI_NUMERICHOST | NI_NUMERICSERV) == 0 else { return "?" }
        let hostText = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let portText = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(hostText)]:\(portText)" : "\(hostText):\(portText)"
    }
}
