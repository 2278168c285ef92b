import Testing
@testable import BlogWire

@Suite("IPAddressText: strict numeric addresses")
struct IPAddressTextTests {
    @Test(arguments: [
        ("0.0.0.0", [0, 0, 0, 0]), ("127.0.0.2", [127, 0, 0, 2]), ("255.255.255.255", [255, 255, 255, 255]),
        ("192.0.2.10", [192, 0, 2, 10]),
    ] as [(String, [UInt8])])
    func goodIPv4(_ text: String, _ expected: [UInt8]) {
        #expect(IPAddressText.ipv4(bytes(text)) == expected)
    }

    @Test(arguments: ["", "1.2.3", "1.2.3.4.5", "256.0.0.1", "01.2.3.4", "1.2.3.04", "1..2.3", ".1.2.3", "1.2.3.",
                      "1.2.3.4 ", " 1.2.3.4", "1.2.3.a", "1.2.3.-4", "+1.2.3.4", "1.2.3.1000", "::1", "0x7f.0.0.1"])
    func badIPv4(_ text: String) {
        #expect(IPAddressText.ipv4(bytes(text)) == nil)
    }

    @Test(arguments: [
        ("::", [UInt8](repeating: 0, count: 16)),
        ("::1", loopback6),
        ("2001:db8::1", [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]),
        ("2001:DB8:0:0:0:0:0:1", [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]),
        ("::ffff:127.0.0.2", [UInt8](repeating: 0, count: 10) + [0xff, 0xff, 127, 0, 0, 2]),
        ("1:2:3:4:5:6:7::", [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 0]),
        ("1:2:3:4:5:6:1.2.3.4", [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 1, 2, 3, 4]),
        ("fe80::", [0xfe, 0x80] + [UInt8](repeating: 0, count: 14)),
    ] as [(String, [UInt8])])
    func goodIPv6(_ text: String, _ expected: [UInt8]) {
        #expect(IPAddressText.ipv6(bytes(text)) == expected)
    }

    @Test(arguments: ["", ":", ":::", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::", "::g", "1:", ":1",
                      "1:::2", "[::1]", "fe80::1%eth0", "::1.2.3", "1.2.3.4", "::1.2.3.4:5", "1:2:3:4:5:6:7:1.2.3.4",
                      " ::1", "::1 ", "::01.2.3.4"])
    func badIPv6(_ text: String) {
        #expect(IPAddressText.ipv6(bytes(text)) == nil)
    }
}
