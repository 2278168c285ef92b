import BlogSockets
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// getaddrinfo through `AddressResolver`: literals and names that need no
/// network (`localhost`, and `.invalid`, which never resolves).
@Suite struct AddressResolverTests {
    @Test func ipv4Literal() throws {
        let addresses = try AddressResolver.resolve(host: "127.0.0.1", port: 8080)
        #expect(addresses == [try SocketAddress(ip: "127.0.0.1", port: 8080)])
    }

    @Test func bracketedIPv6Literal() throws {
        let addresses = try AddressResolver.resolve(host: "[::1]", port: 8080)
        #expect(addresses.map(\.description) == ["[::1]:8080"])
    }

    @Test func localhostIsLoopbackOnly() throws {
        let addresses = try AddressResolver.resolve(host: "localhost", port: 8080)
        #expect(!addresses.isEmpty)
        #expect(Set(addresses).count == addresses.count, "no duplicates")
        for address in addresses {
            #expect(address.port == 8080)
            #expect(address.ipBytes.first == 127 || address.host == "::1", "\(address)")
        }
    }

    @Test func passiveWildcard() throws {
        let addresses = try AddressResolver.resolve(host: "0.0.0.0", port: 1, passive: true)
        #expect(addresses == [SocketAddress.any(family: AF_INET, port: 1)])
    }

    @Test func invalidNameThrows() {
        #expect {
            try AddressResolver.resolve(host: "no-such-host.invalid", port: 80)
        } throws: { error in
            guard case .cannotResolve(let host, _, let reason) = error as? SocketError else { return false }
            return host == "no-such-host.invalid" && !reason.isEmpty
        }
    }
}
