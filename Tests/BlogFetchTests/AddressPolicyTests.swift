@testable import BlogFetch
import Testing

@Suite struct AddressPolicyTests {
    static func bytes(_ text: String) -> [UInt8] { HostResolver.literal(text)!.bytes }

    @Test(arguments: [
        "0.0.0.0", "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
        "169.254.169.254", "100.64.0.1", "100.127.255.254", "224.0.0.1", "239.1.1.1", "255.255.255.255",
        "240.0.0.1", "198.18.0.1", "192.0.2.1",
        "::", "::1", "fc00::1", "fd12:3456::1", "fe80::1", "febf::1", "fec0::1", "ff02::1",
        "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1",
        "64:ff9b::a00:1", "2002:a00:1::1", "2002:7f00:1::", "2001:db8::1", "2001::1",
    ])
    func refused(_ address: String) {
        #expect(!AddressPolicy.isPublic(Self.bytes(address)), "\(address) must not be reachable")
    }

    @Test(arguments: [
        "93.184.215.14", "1.1.1.1", "8.8.8.8", "172.32.0.1", "100.128.0.1", "169.253.1.1", "192.169.0.1",
        "2606:4700::1111", "2a00:1450:4001::200e", "::ffff:93.184.215.14", "64:ff9b::808:808", "2002:808:808::1",
    ])
    func allowed(_ address: String) {
        #expect(AddressPolicy.isPublic(Self.bytes(address)), "\(address) is public")
    }
}
