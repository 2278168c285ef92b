import BlogSockets

/// Whom a per-address budget belongs to: an IPv4 address, or an IPv6 /64.
///
/// One IPv6 host commonly holds a whole /64 and can pick any address in
/// it, so budgets keyed by the full address would be no budgets at all;
/// OpenSSH's PerSourcePenalties and most rate limiters group IPv6 the same
/// way. An IPv4-mapped IPv6 peer counts as its IPv4 address.
public struct AddressKey: Hashable, Sendable, CustomStringConvertible {
    /// The IPv4 address, or the first 64 bits of the IPv6 one.
    let bits: UInt64
    let isIPv6: Bool

    public init(_ address: SocketAddress) {
        let bytes = address.ipBytes
        isIPv6 = bytes.count == 16
        bits = bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    public var description: String {
        guard isIPv6 else {
            return (0..<4).reversed().map { String((bits >> ($0 * 8)) & 0xFF) }.joined(separator: ".")
        }
        let groups = (0..<4).reversed().map { String((bits >> ($0 * 16)) & 0xFFFF, radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
