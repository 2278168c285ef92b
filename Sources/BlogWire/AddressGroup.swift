/// Whom a per-address budget belongs to, from an address as text: an IPv4
/// address, or the /64 of an IPv6 one. One IPv6 host commonly holds a
/// whole /64 and can send from any address in it, so a budget keyed by
/// the full address would be no budget; an IPv4-mapped IPv6 address
/// counts as its IPv4 address. Text that is no numeric address is its
/// own group.
///
///     AddressGroup.key("2001:db8:1:2::7")     // "2001:db8:1:2::/64"
///     AddressGroup.key("2001:db8:1:2:ff::9")  // "2001:db8:1:2::/64"
///     AddressGroup.key("::ffff:192.0.2.1")    // "192.0.2.1"
public enum AddressGroup {
    public static func key(_ address: String) -> String {
        let text = Array(address.utf8)
        if IPAddressText.ipv4(text) != nil { return address }
        guard let bytes = IPAddressText.ipv6(text), bytes.count == 16 else { return address }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12...].map { String($0) }.joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
