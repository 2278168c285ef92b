#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address and port, as the socket calls take it.
///
///     let address = try SocketAddress(ip: "127.0.0.1", port: 51515)
///     print(address)        // 127.0.0.1:51515
///     print(address.host)   // 127.0.0.1
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    public let storage: sockaddr_storage
    public let length: socklen_t

    /// Wraps an address a system call filled in (accept, getsockname).
    public init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// A numeric IPv4 or IPv6 address (`[::1]` is taken as `::1`).
    public init(ip: String, port: Int) throws(SocketError) {
        var text = ip
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var storage = sockaddr_storage()
        let parsed = withUnsafeMutableBytes(of: &storage) { raw -> socklen_t? in
            if text.contains(":") {
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                guard inet_pton(AF_INET6, text, &address.pointee.sin6_addr) == 1 else { return nil }
                address.pointee.sin6_family = sa_family_t(AF_INET6)
                address.pointee.sin6_port = UInt16(truncatingIfNeeded: port).bigEndian
                return socklen_t(MemoryLayout<sockaddr_in6>.size)
            }
            let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
            guard inet_pton(AF_INET, text, &address.pointee.sin_addr) == 1 else { return nil }
            address.pointee.sin_family = sa_family_t(AF_INET)
            address.pointee.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
            return socklen_t(MemoryLayout<sockaddr_in>.size)
        }
        guard let parsed else { throw .cannotResolve(host: ip, code: EAI_NONAME, reason: "not a numeric IP address") }
        self.init(storage: storage, length: parsed)
    }

    /// Every address of `family` (the wildcard), at `port`.
    public static func any(family: Int32, port: Int) -> SocketAddress {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { raw in
            if family == AF_INET6 {
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                address.pointee.sin6_family = sa_family_t(AF_INET6)
                address.pointee.sin6_port = UInt16(truncatingIfNeeded: port).bigEndian
                address.pointee.sin6_addr = in6addr_any
            } else {
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                address.pointee.sin_family = sa_family_t(AF_INET)
                address.pointee.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
                address.pointee.sin_addr.s_addr = INADDR_ANY
            }
        }
        let length = family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
        return SocketAddress(storage: storage, length: socklen_t(length))
    }

    /// `AF_INET` or `AF_INET6`.
    public var family: Int32 { Int32(storage.ss_family) }

    /// The port, in host byte order.
    public var port: Int {
        withUnsafeBytes(of: storage) { raw in
            switch family {
            case AF_INET: Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
            case AF_INET6: Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
            default: 0
            }
        }
    }

    /// The same address with another port.
    public func with(port: Int) -> SocketAddress {
        var storage = storage
        withUnsafeMutableBytes(of: &storage) { raw in
            switch family {
            case AF_INET:
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self).pointee.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
            case AF_INET6:
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_port = UInt16(truncatingIfNeeded: port).bigEndian
            default:
                break
            }
        }
        return SocketAddress(storage: storage, length: length)
    }

    /// The address's bytes: 4 for IPv4 (IPv4-mapped IPv6 included, so one
    /// client has one address whichever family it arrived on), 16 for IPv6.
    public var ipBytes: [UInt8] {
        withUnsafeBytes(of: storage) { raw in
            switch family {
            case AF_INET:
                return withUnsafeBytes(of: raw.load(as: sockaddr_in.self).sin_addr) { Array($0) }
            case AF_INET6:
                let bytes = withUnsafeBytes(of: raw.load(as: sockaddr_in6.self).sin6_addr) { Array($0) }
                return Self.isIPv4Mapped(bytes) ? Array(bytes[12...]) : bytes
            default:
                return []
            }
        }
    }

    /// The numeric address, `127.0.0.1` or `::1`; an IPv4-mapped IPv6
    /// address is written as plain IPv4.
    public var host: String {
        let bytes = ipBytes
        switch bytes.count {
        case 4: return bytes.map(String.init).joined(separator: ".")
        case 16:
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            _ = bytes.withUnsafeBytes { inet_ntop(AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        default: return "unknown"
        }
    }

    /// `127.0.0.1:51515` or `[::1]:51515`.
    public var description: String {
        ipBytes.count == 16 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: storage) { raw in
            try body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    public static func == (a: SocketAddress, b: SocketAddress) -> Bool {
        a.family == b.family && a.port == b.port && a.ipBytes == b.ipBytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(family)
        hasher.combine(port)
        hasher.combine(ipBytes)
    }

    private static func isIPv4Mapped(_ bytes: [UInt8]) -> Bool {
        bytes.count == 16 && bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
    }
}

extension SocketAddress {
    /// The address of 4 (IPv4) or 16 (IPv6) bytes in network order, at
    /// `port`; nil for any other count. How an address that arrived as
    /// bytes (a PROXY header) becomes one the server formats and counts
    /// exactly like a peer's.
    public init?(ipBytes bytes: [UInt8], port: Int) {
        var storage = sockaddr_storage()
        let length: Int
        switch bytes.count {
        case 4:
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                address.pointee.sin_family = sa_family_t(AF_INET)
                address.pointee.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
                withUnsafeMutableBytes(of: &address.pointee.sin_addr) { $0.copyBytes(from: bytes) }
            }
            length = MemoryLayout<sockaddr_in>.size
        case 16:
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                address.pointee.sin6_family = sa_family_t(AF_INET6)
                address.pointee.sin6_port = UInt16(truncatingIfNeeded: port).bigEndian
                withUnsafeMutableBytes(of: &address.pointee.sin6_addr) { $0.copyBytes(from: bytes) }
            }
            length = MemoryLayout<sockaddr_in6>.size
        default:
            return nil
        }
        self.init(storage: storage, length: socklen_t(length))
    }
}
