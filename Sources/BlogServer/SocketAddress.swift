#if canImport(Glibc)
import Glibc
#endif

/// Helpers for `sockaddr` values.
enum SocketAddress {
    /// The IP address in `storage` as text; an IPv4-mapped IPv6 address is
    /// written as plain IPv4, so one client has one address whichever
    /// family it arrived on.
    static func ipString(_ storage: sockaddr_storage) -> String {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { addr in
                    var address = addr.pointee.sin_addr
                    inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                    return cString(text)
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { addr in
                    var address = addr.pointee.sin6_addr
                    let bytes = withUnsafeBytes(of: &address) { Array($0) }
                    if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                        return bytes[12...].map(String.init).joined(separator: ".")
                    }
                    inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                    return cString(text)
                }
            }
        default:
            return "unknown"
        }
    }

    private static func cString(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The port in `storage`, in host byte order.
    static func port(_ storage: sockaddr_storage) -> Int {
        var storage = storage
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            switch family {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            default:
                0
            }
        }
    }
}
