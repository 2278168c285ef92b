import BlogWire

/// Whom a per-address limit belongs to: an IPv4 address, or an IPv6 /64.
/// Every budget and connection table of every door is keyed by it.
///
/// One IPv6 host commonly holds a whole /64 and can pick any address in
/// it, so budgets keyed by the full address would be no budgets at all;
/// OpenSSH's PerSourcePenalties and most rate limiters group IPv6 the same
/// way. An IPv4-mapped IPv6 address counts as its IPv4 address.
///
///     AddressKey(text: "2001:db8:1:2::7")     // 2001:db8:1:2::/64
///     AddressKey(text: "2001:db8:1:2:ff::9")  // the same key
///     AddressKey(text: "::ffff:192.0.2.1")    // 192.0.2.1
public struct AddressKey: Hashable, Sendable, CustomStringConvertible {
    /// The IPv4 address, or the first 64 bits of the IPv6 one.
    let bits: UInt64
    let isIPv6: Bool

    /// The key of an address given as its bytes in network order: 4 for
    /// IPv4, 16 for IPv6 (any other count keys as an empty IPv4 address).
    public init(ipBytes bytes: some Collection<UInt8>) {
        var bytes = Array(bytes)
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            bytes = Array(bytes[12...])
        }
        isIPv6 = bytes.count == 16
        bits = bytes.prefix(isIPv6 ? 8 : 4).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The key of a numeric address written as text (`192.0.2.1`,
    /// `2001:db8::1`, as a PROXY header or a socket names it); nil for
    /// anything else.
    public init?(text: String) {
        let utf8 = Array(text.utf8)
        if let bytes = IPAddressText.ipv4(utf8) {
            self.init(ipBytes: bytes)
        } else if let bytes = IPAddressText.ipv6(utf8), bytes.count == 16 {
            self.init(ipBytes: bytes)
        } else {
            return nil
        }
    }

    /// The key of `text`; text that is no numeric address (none comes
    /// from a socket) keys as one shared address rather than escape the
    /// limit.
    public static func of(_ text: String) -> AddressKey {
        AddressKey(text: text) ?? AddressKey(ipBytes: [])
    }

    public var description: String {
        guard isIPv6 else {
            return (0..<4).reversed().map { String((bits >> ($0 * 8)) & 0xFF) }.joined(separator: ".")
        }
        let groups = (0..<4).reversed().map { String((bits >> ($0 * 16)) & 0xFFFF, radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
