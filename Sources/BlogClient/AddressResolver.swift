#if canImport(Glibc)
import Glibc
#endif

/// One address to connect to, as getaddrinfo gives it.
public struct ResolvedAddress: Sendable, CustomStringConvertible {
    public let family: Int32
    let storage: sockaddr_storage
    let length: socklen_t

    /// The numeric address and port, `127.0.0.1:51515` or `[::1]:51515`.
    public var description: String {
        let port = withSockaddr { pointer, _ -> Int in
            family == AF_INET6
                ? pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
                : pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
        return family == AF_INET6 ? "[\(numericHost)]:\(port)" : "\(numericHost):\(port)"
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var storage = storage
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// The numeric address, e.g. `127.0.0.1` or `::1`.
    public var numericHost: String {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard status == 0 else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Host names and literals (IPv4 and IPv6) to socket addresses.
public enum AddressResolver {
    /// Every TCP address of `host` at `port`, in getaddrinfo's order of
    /// preference, without duplicates. `[::1]` is taken as `::1`.
    public static func resolve(host: String, port: Int) throws(BlogClientError) -> [ResolvedAddress] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            throw .cannotResolve(host: host, reason: reason)
        }
        defer { freeaddrinfo(list) }
        var addresses: [ResolvedAddress] = []
        var seen: Set<[UInt8]> = []
        for info in sequence(first: first, next: { $0.pointee.ai_next }) {
            let family = info.pointee.ai_family
            guard family == AF_INET || family == AF_INET6, let source = info.pointee.ai_addr else { continue }
            let length = info.pointee.ai_addrlen
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(start: source, count: Int(length)))
            }
            let key = withUnsafeBytes(of: storage) { Array($0.prefix(Int(length))) }
            guard seen.insert(key).inserted else { continue }
            addresses.append(ResolvedAddress(family: family, storage: storage, length: length))
        }
        guard !addresses.isEmpty else { throw .cannotResolve(host: host, reason: "no IPv4 or IPv6 address") }
        return addresses
    }
}
