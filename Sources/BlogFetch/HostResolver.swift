#if canImport(Glibc)
import Glibc
#endif
import NIOPosix

/// One address a host name resolved to.
public struct ResolvedAddress: Sendable, Hashable {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    public var bytes: [UInt8]
    /// The address as text, as `inet_ntop` writes it.
    public var text: String
}

/// Resolves a host name to its addresses with `getaddrinfo`, on NIO's
/// blocking-work thread pool so that no event loop or task thread waits.
struct HostResolver: Sendable {
    let pool: NIOThreadPool

    func resolve(_ host: String) async throws -> [ResolvedAddress] {
        // A literal address (IPv6 in brackets in a URL) needs no lookup.
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let literal = Self.literal(name) { return [literal] }
        return try await pool.runIfActive { try Self.lookUp(name) }
    }

    static func literal(_ text: String) -> ResolvedAddress? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return ResolvedAddress(bytes: withUnsafeBytes(of: &v4) { Array($0) }, text: text)
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return ResolvedAddress(bytes: bytes, text: Self.text(bytes))
        }
        return nil
    }

    static func lookUp(_ host: String) throws -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &list)
        guard code == 0 else { throw FetchError.unresolvable(host: host, code: code) }
        defer { freeaddrinfo(list) }
        var found: [ResolvedAddress] = []
        var next = list
        while let entry = next?.pointee {
            next = entry.ai_next
            guard let socketAddress = entry.ai_addr else { continue }
            let bytes: [UInt8]
            switch entry.ai_family {
            case AF_INET:
                bytes = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var address = pointer.pointee.sin_addr
                    return withUnsafeBytes(of: &address) { Array($0) }
                }
            case AF_INET6:
                bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    var address = pointer.pointee.sin6_addr
                    return withUnsafeBytes(of: &address) { Array($0) }
                }
            default:
                continue
            }
            let address = ResolvedAddress(bytes: bytes, text: Self.text(bytes))
            if !found.contains(address) { found.append(address) }
        }
        guard !found.isEmpty else { throw FetchError.unresolvable(host: host, code: EAI_NONAME) }
        return found
    }

    static func text(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
