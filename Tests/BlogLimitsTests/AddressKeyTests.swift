import Testing
import BlogLimits

@Suite("AddressKey: whom a per-address limit belongs to")
struct AddressKeyTests {
    @Test(arguments: [
        ("192.0.2.10", "192.0.2.10"),
        ("2001:db8:1:2::7", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("2001:0db8:0001:0002:0:0:0:1", "2001:db8:1:2::/64"),
        ("::1", "0:0:0:0::/64"),
        ("::ffff:192.0.2.1", "192.0.2.1"),
    ] as [(String, String)])
    func keysNumericText(_ address: String, _ key: String) throws {
        #expect(try #require(AddressKey(text: address)).description == key)
    }

    /// Text that is no numeric address has no key: a caller decides whose
    /// budget it spends.
    @Test(arguments: ["-", "fe80::1%eth0", "", "localhost", "192.0.2.256"])
    func refusesOtherText(_ text: String) {
        #expect(AddressKey(text: text) == nil)
    }

    /// Every address of one /64 is one key; the next /64 is another.
    @Test func aSlash64IsOneKey() throws {
        let inside = try (0..<100).map {
            try #require(AddressKey(text: "2001:db8:aa:bb:\(String($0, radix: 16))::\(String($0 * 7, radix: 16))"))
        }
        #expect(Set(inside).count == 1)
        #expect(AddressKey(text: "2001:db8:aa:bc::1") != inside[0])
    }

    /// Bytes and text agree, and a mapped IPv4 address is its IPv4 one.
    @Test func bytesAndTextAgree() {
        #expect(AddressKey(ipBytes: [192, 0, 2, 1]) == AddressKey(text: "192.0.2.1"))
        #expect(AddressKey(ipBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 0, 2, 1]) == AddressKey(text: "192.0.2.1"))
        #expect(AddressKey(ipBytes: [0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 9, 9, 9, 9, 9, 9, 9, 9]) == AddressKey(text: "2001:db8:1:2::"))
    }
}
