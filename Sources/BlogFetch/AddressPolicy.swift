/// Which IP addresses an outgoing fetch may connect to: public unicast
/// only, unless private addresses are allowed.
///
/// Refused: unspecified, loopback, RFC 1918, CGNAT (100.64/10), link-local,
/// multicast, reserved and documentation ranges, IPv6 unique-local
/// (fc00::/7) and site-local; and any IPv6 form that carries one of those
/// IPv4 addresses inside it (mapped, compatible, NAT64, 6to4), since the
/// kernel or a gateway would reach the embedded address.
public enum AddressPolicy {
    /// Whether `bytes` (4 for IPv4, 16 for IPv6, network order) is a public
    /// unicast address.
    public static func isPublic(_ bytes: [UInt8]) -> Bool {
        switch bytes.count {
        case 4: return isPublicV4(bytes)
        case 16: return isPublicV6(bytes)
        default: return false
        }
    }

    static func isPublicV4(_ a: [UInt8]) -> Bool {
        let (b0, b1, b2) = (a[0], a[1], a[2])
        switch b0 {
        case 0, 10, 127: return false                       // this network, private, loopback
        case 100 where b1 & 0xC0 == 64: return false        // CGNAT 100.64/10
        case 169 where b1 == 254: return false              // link-local
        case 172 where b1 & 0xF0 == 16: return false        // private 172.16/12
        case 192 where b1 == 168: return false              // private
        case 192 where b1 == 0 && (b2 == 0 || b2 == 2): return false  // IETF protocol, TEST-NET-1
        case 192 where b1 == 88 && b2 == 99: return false   // 6to4 relay anycast
        case 198 where b1 & 0xFE == 18: return false        // benchmarking 198.18/15
        case 198 where b1 == 51 && b2 == 100: return false  // TEST-NET-2
        case 203 where b1 == 0 && b2 == 113: return false   // TEST-NET-3
        case 224...255: return false                        // multicast, reserved, broadcast
        default: return true
        }
    }

    static func isPublicV6(_ a: [UInt8]) -> Bool {
        let prefix96Zero = a[0..<10].allSatisfy { $0 == 0 }
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, which also
        // covers :: and ::1): judged by the IPv4 address inside.
        if prefix96Zero && a[10] == 0xFF && a[11] == 0xFF { return isPublicV4(Array(a[12..<16])) }
        if prefix96Zero && a[10] == 0 && a[11] == 0 { return false }
        // 64:ff9b::/96 (NAT64) and 64:ff9b:1::/48 (local NAT64).
        if a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xFF && a[3] == 0x9B {
            if a[4..<12].allSatisfy({ $0 == 0 }) { return isPublicV4(Array(a[12..<16])) }
            if a[4] == 0 && a[5] == 1 { return false }
        }
        // 2002::/16 (6to4) carries an IPv4 address in its next 32 bits.
        if a[0] == 0x20 && a[1] == 0x02 { return isPublicV4(Array(a[2..<6])) }
        if a[0] & 0xFE == 0xFC { return false }                 // unique local fc00::/7
        if a[0] == 0xFE && a[1] & 0xC0 == 0x80 { return false }  // link-local fe80::/10
        if a[0] == 0xFE && a[1] & 0xC0 == 0xC0 { return false }  // site-local fec0::/10
        if a[0] == 0xFF { return false }                         // multicast
        if a[0] == 0x01 && a[1..<8].allSatisfy({ $0 == 0 }) { return false }  // discard 100::/64
        if a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0 { return false }  // Teredo 2001::/32
        if a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0D && a[3] == 0xB8 { return false }  // documentation
        // Only global unicast (2000::/3) is public.
        return a[0] & 0xE0 == 0x20
    }
}
