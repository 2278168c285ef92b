import BlogSockets
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Parsing and writing addresses: no sockets involved.
@Suite struct SocketAddressTests {
    @Test func ipv4() throws {
        let address = try SocketAddress(ip: "127.0.0.1", port: 5)
        #expect(address.family == AF_INET)
        #expect(address.host == "127.0.0.1")
        #expect(address.port == 5)
        #expect(address.ipBytes == [127, 0, 0, 1])
        #expect(address.description == "127.0.0.1:5")
    }

    @Test func ipv6() throws {
        let address = try SocketAddress(ip: "::1", port: 5)
        #expect(address.family == AF_INET6)
        #expect(address.host == "::1")
        #expect(address.port == 5)
        #expect(address.description == "[::1]:5")
        #expect(try SocketAddress(ip: "2001:DB8:0:0::7", port: 51515).description == "[2001:db8::7]:51515")
    }

    @Test func bracketedIPv6IsTheSameAddress() throws {
        let bracketed = try SocketAddress(ip: "[::1]", port: 5)
        let plain = try SocketAddress(ip: "::1", port: 5)
        #expect(bracketed == plain)
        #expect(bracketed.hashValue == plain.hashValue)
        #expect(bracketed.description == "[::1]:5")
    }

    @Test func ipv4MappedIPv6IsWrittenAsIPv4() throws {
        let mapped = try SocketAddress(ip: "::ffff:10.1.2.3", port: 7)
        #expect(mapped.family == AF_INET6)
        #expect(mapped.host == "10.1.2.3")
        #expect(mapped.ipBytes == [10, 1, 2, 3])
        #expect(mapped.description == "10.1.2.3:7")
    }

    @Test func equalityAndHashAcrossFamilies() throws {
        let v4 = try SocketAddress(ip: "10.1.2.3", port: 7)
        let mapped = try SocketAddress(ip: "::ffff:10.1.2.3", port: 7)
        let mappedAgain = try SocketAddress(ip: "[::FFFF:10.1.2.3]", port: 7)
        // One client, one host, whichever family it came on; but not the
        // same socket address, which a resolver must keep apart.
        #expect(v4.host == mapped.host)
        #expect(v4 != mapped)
        #expect(mapped == mappedAgain)
        #expect(mapped.hashValue == mappedAgain.hashValue)
        #expect(v4 != v4.with(port: 8))
        #expect(try SocketAddress(ip: "::1", port: 7) != SocketAddress(ip: "127.0.0.1", port: 7))
        let set: Set = [v4, mapped, mappedAgain, v4.with(port: 7)]
        #expect(set.count == 2)
    }

    @Test func withPortKeepsTheHost() throws {
        let v4 = try SocketAddress(ip: "192.0.2.9", port: 0).with(port: 51000)
        #expect(v4.description == "192.0.2.9:51000")
        #expect(v4.family == AF_INET)
        let v6 = try SocketAddress(ip: "::1", port: 1).with(port: 65535)
        #expect(v6.description == "[::1]:65535")
        #expect(v6.family == AF_INET6)
        #expect(v6.with(port: 1) == (try SocketAddress(ip: "::1", port: 1)))
    }

    @Test func wildcards() {
        #expect(SocketAddress.any(family: AF_INET, port: 9).description == "0.0.0.0:9")
        #expect(SocketAddress.any(family: AF_INET6, port: 9).description == "[::]:9")
    }

    @Test(arguments: ["", "localhost", "256.1.1.1", "1.2.3", "::g", "[127.0.0.1", "1.2.3.4:80"])
    func badLiteralCannotBeResolved(text: String) {
        #expect {
            try SocketAddress(ip: text, port: 1)
        } throws: { error in
            guard case .cannotResolve(let host, let code, _) = error as? SocketError else { return false }
            return host == text && code == EAI_NONAME
        }
    }
}
