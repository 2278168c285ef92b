#if canImport(Glibc)
import Glibc
#endif

/// Host names and literals (IPv4 and IPv6) to socket addresses.
///
///     let addresses = try AddressResolver.resolve(host: "localhost", port: 51515)
///     // [[::1]:51515, 127.0.0.1:51515], in getaddrinfo's order of preference
public enum AddressResolver {
    /// Every TCP address of `host` at `port`, in getaddrinfo's order of
    /// preference, without duplicates. `[::1]` is taken as `::1`. With
    /// `passive`, the addresses are for listening (`bind`).
    public static func resolve(host: String, port: Int, passive: Bool = false) throws(SocketError) -> [SocketAddress] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            throw .cannotResolve(host: host, code: status, reason: reason)
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        for info in sequence(first: first, next: { $0.pointee.ai_next }) {
            let family = info.pointee.ai_family
            guard family == AF_INET || family == AF_INET6, let source = info.pointee.ai_addr else { continue }
            var storage = sockaddr_storage()
            let length = min(Int(info.pointee.ai_addrlen), MemoryLayout<sockaddr_storage>.size)
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: source, count: length)) }
            let address = SocketAddress(storage: storage, length: socklen_t(length))
            // Same family too: a dual-stack name may give ::ffff:1.2.3.4 and 1.2.3.4.
            if !addresses.contains(where: { $0 == address }) { addresses.append(address) }
        }
        guard !addresses.isEmpty else {
            throw .cannotResolve(host: host, code: EAI_NONAME, reason: "no IPv4 or IPv6 address")
        }
        return addresses
    }
}
