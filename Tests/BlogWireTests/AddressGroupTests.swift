import Testing
import BlogWire

@Suite("AddressGroup: whom a per-address budget belongs to")
struct AddressGroupTests {
    @Test(arguments: [
        ("192.0.2.10", "192.0.2.10"),
        ("2001:db8:1:2::7", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("2001:0db8:0001:0002:0:0:0:1", "2001:db8:1:2::/64"),
        ("::1", "0:0:0:0::/64"),
        ("::ffff:192.0.2.1", "192.0.2.1"),
        ("-", "-"),
        ("fe80::1%eth0", "fe80::1%eth0"),
    ] as [(String, String)])
    func groups(_ address: String, _ key: String) {
        #expect(AddressGroup.key(address) == key)
    }

    /// Every address of one /64 is one group; the next /64 is another.
    @Test func aSlash64IsOneGroup() {
        let inside = (0..<100).map { AddressGroup.key("2001:db8:aa:bb:\(String($0, radix: 16))::\(String($0 * 7, radix: 16))") }
        #expect(Set(inside) == ["2001:db8:aa:bb::/64"])
        #expect(AddressGroup.key("2001:db8:aa:bc::1") != inside[0])
    }
}
