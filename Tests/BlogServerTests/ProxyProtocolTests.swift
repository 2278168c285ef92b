import BlogCore
import BlogServer
import BlogSockets
import BlogWire
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import BlogAuth
#endif

/// The PROXY protocol over real loopback sockets. The test's clients are
/// the "proxy" (from 127.0.0.1, the one trusted address) and write the
/// headers by hand; other loopback sources (127.0.0.5) are untrusted peers.
@Suite("PROXY protocol")
struct ProxyProtocolTests {
    static let proxy = "127.0.0.1"
    static let stranger = "127.0.0.5"

    /// A server with the PROXY protocol on, trusting 127.0.0.1 only.
    private func fixture(_ configure: (inout BlogServer.Options) -> Void = { _ in }) throws -> ServerFixture {
        try ServerFixture {
            $0.proxyProtocol = true
            $0.trustedProxies = [Self.proxy]
            configure(&$0)
        }
    }

    /// `header` then `message` on a new connection from `source`, in one
    /// write; everything the server sent until it closed.
    private func send(_ f: ServerFixture, _ header: [UInt8], _ message: String, from source: String = proxy,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let client = try f.client(source: source)
        defer { client.close() }
        try client.send(header + Array(message.utf8))
        let (text, end) = client.readToEnd()
        #expect(end == .eof, "after \(text.debugDescription)", sourceLocation: sourceLocation)
        return text
    }

    @Test func aLeaseFollowsTheClientsRealAddressThroughTheProxy() throws {
        let f = try fixture()
        defer { f.tearDown() }
        _ = try f.store.createUser(name: "Behind", passwordHash: try PasswordHasher(parameters: .testing).hash("pw"), at: Date())
        #expect(try send(f, v1("127.0.0.2"), "login:Behind:pw[E];") == "log:OK[E];")
        #expect(try send(f, v2(ipv4: [127, 0, 0, 2]), "newpost:Behind:Via v2:c[E];") == "post:OK[E];")
        #expect(try send(f, v1("127.0.0.2"), "newpost:Behind:Via v1:c[E];") == "post:OK[E];")
        // An IPv4-mapped client over TCP6 is the same IPv4 client.
        #expect(try send(f, v1tcp6("::ffff:127.0.0.2"), "newpost:Behind:Mapped:c[E];") == "post:OK[E];")
        // Another client behind the same proxy holds no lease.
        #expect(try send(f, v1("127.0.0.3"), "newpost:Behind:Other:c[E];") == "post:NA[E];")
        #expect(try send(f, v2(ipv4: [127, 0, 0, 3]), "newpost:Behind:Other:c[E];") == "post:NA[E];")
        // Nor does the proxy itself, speaking for nobody (v1 UNKNOWN).
        #expect(try send(f, Array("PROXY UNKNOWN\r\n".utf8), "newpost:Behind:Proxy:c[E];") == "post:NA[E];")
        // The same client connecting directly is the same address.
        #expect(try send(f, [], "newpost:Behind:Direct:c[E];", from: "127.0.0.2") == "post:OK[E];")
        #expect(try f.postCount(of: "Behind") == 4)
    }

    @Test func aHeaderFromAnUntrustedPeerIsRefused() throws {
        let f = try fixture()
        defer { f.tearDown() }
        // The victim logs in through the proxy from 127.0.0.2, which holds the lease.
        #expect(try send(f, v1("127.0.0.2"), "register:Victim:pw[E];") == "reg:OK[E];")
        #expect(try send(f, v1("127.0.0.2"), "newpost:Victim:Real:c[E];") == "post:OK[E];")
        #expect(try send(f, v1("127.0.0.2"), "newpost:Victim:Spoofed:c[E];", from: Self.stranger) == "err:ARGS[E];")
        #expect(try send(f, v2(ipv4: [127, 0, 0, 2]), "newpost:Victim:Spoofed:c[E];", from: Self.stranger) == "err:ARGS[E];")
        #expect(try f.postCount(of: "Victim") == 1)
        // Its ordinary messages are an ordinary client's.
        #expect(try send(f, [], "newpost:Victim:Mine:c[E];", from: Self.stranger) == "post:NA[E];")
        #expect(try send(f, [], "hello[E];", from: Self.stranger) == "err:CMD[E];")
    }

    @Test func aTrustedProxyWithoutAGoodHeaderGetsErrArgs() throws {
        let f = try fixture()
        defer { f.tearDown() }
        #expect(try send(f, [], "login:a:b[E];") == "err:ARGS[E];")
        #expect(try send(f, Array("PROXY TCP4 127.0.0.2 127.0.0.1 1 2\n".utf8), "login:a:b[E];") == "err:ARGS[E];")
        #expect(try send(f, Array("PROXY TCP4 127.0.0.2 127.0.0.1 1 65536\r\n".utf8), "login:a:b[E];") == "err:ARGS[E];")
        #expect(try send(f, ProxyHeader.v2Signature + [0x21, 0x11, 0x02, 0x09] + [UInt8](repeating: 0, count: 521), "")
            == "err:ARGS[E];")
        // Cut off by the proxy's close.
        let cut = try f.client()
        try cut.send("PROXY TCP4 127.0")
        cut.halfClose()
        #expect(cut.readToEnd() == ("err:ARGS[E];", .eof))
    }

    @Test func theHeaderByteAtATime() throws {
        let f = try fixture()
        defer { f.tearDown() }
        let client = try f.client()
        for byte in v2(ipv4: [127, 0, 0, 9]) { try client.send([byte]) }
        try client.send("ping[E];")
        #expect(client.readToEnd() == ("err:CMD[E];", .eof))
    }

    @Test func aHeaderThatNeverComesGetsErrTime() throws {
        let f = try fixture()
        defer { f.tearDown() }
        let client = try f.acceptedClient()
        try client.send("PROXY TCP4 ")
        f.advance(by: 11)
        #expect(client.readToEnd() == ("err:TIME[E];", .eof))
    }

    /// The per-address connection limit counts the clients behind the
    /// proxy, each on its own, and never the proxy itself.
    @Test func thePerAddressLimitAppliesToTheRealAddress() throws {
        let f = try fixture { $0.maxConnectionsPerAddress = 2 }
        defer { f.tearDown() }
        // Two connections of 127.0.0.2, answered and held open (draining
        // until the client closes): its two places are taken.
        var held: [TestClient] = []
        for _ in 0..<2 {
            let client = try f.client()
            try client.send(v1("127.0.0.2") + Array("ping[E];".utf8))
            #expect(try client.readReply() == "err:CMD[E];")
            held.append(client)
        }
        #expect(try send(f, v1("127.0.0.2"), "ping[E];") == "err:BUSY[E];")
        // Others behind the same proxy, and the proxy's own health checks,
        // still get in: five connections from 127.0.0.1 at once.
        for client in ["127.0.0.3", "127.0.0.4"] {
            let extra = try f.client()
            try extra.send(v1(client) + Array("ping[E];".utf8))
            #expect(try extra.readReply() == "err:CMD[E];")
            held.append(extra)
        }
        #expect(try send(f, Self.v2Local, "ping[E];") == "err:CMD[E];")
        // A place given back is free again.
        held[0].close()
        #expect(eventually { f.server.connectionCount == 3 })
        #expect(try send(f, v1("127.0.0.2"), "ping[E];") == "err:CMD[E];")
        held.forEach { $0.close() }
    }

    @Test func theHashBudgetIsTheRealAddresss() throws {
        let f = try fixture { $0.hashBurstPerAddress = 2 }
        defer { f.tearDown() }
        #expect(try send(f, v1("127.0.0.2"), "login:x:y[E];") == "log:NA[E];")
        #expect(try send(f, v1("127.0.0.2"), "login:x:y[E];") == "log:NA[E];")
        #expect(try send(f, v1("127.0.0.2"), "login:x:y[E];") == "err:BUSY[E];")
        #expect(try send(f, v1("127.0.0.3"), "login:x:y[E];") == "log:NA[E];")
    }

    /// HAProxy's `check-send-proxy` (LOCAL, then close) and a plain TCP
    /// check (connect, close): no reply, and the connection is gone.
    @Test func healthChecksCloseQuietly() throws {
        let f = try fixture()
        defer { f.tearDown() }
        let local = try f.client()
        try local.send(Self.v2Local)
        local.halfClose()
        #expect(local.readToEnd() == ("", .eof))
        let plain = try f.client()
        plain.halfClose()
        #expect(plain.readToEnd() == ("", .eof))
        local.close()
        plain.close()
        #expect(eventually { f.server.connectionCount == 0 })
    }

    @Test func keepAliveTakesTheHeaderOnceThenMessages() throws {
        let f = try fixture { $0.connection.keepAlive = true }
        defer { f.tearDown() }
        let client = try f.client()
        try client.send(v1("127.0.0.2") + Array("register:Kept:pw[E];".utf8))
        #expect(try client.readReply() == "reg:OK[E];")
        try client.send("newpost:Kept:T:c[E];")
        #expect(try client.readReply() == "post:OK[E];")
        // The lease is 127.0.0.2's, not the proxy's.
        for (source, reply) in [("127.0.0.2", "post:OK[E];"), ("127.0.0.3", "post:NA[E];")] {
            let other = try f.client()
            try other.send(v1(source) + Array("newpost:Kept:Again:c[E];".utf8))
            #expect(try other.readReply() == reply, "\(source)")
            other.close()
        }
    }

    @Test func withTheProtocolOffAHeaderIsPartOfABadMessage() throws {
        let f = try ServerFixture { $0.trustedProxies = [Self.proxy] }
        defer { f.tearDown() }
        #expect(try send(f, v1("127.0.0.2"), "login:a:b[E];") == "err:CMD[E];")
        #expect(try send(f, [], "login:a:b[E];") == "log:NA[E];")
    }

    @Test func aBadTrustedProxyEntryStopsTheStart() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(throws: ServerError.invalidTrustedProxy(.notAnAddress("proxy.example"))) {
            _ = try f.extraServer(host: "127.0.0.1") {
                $0.proxyProtocol = true
                $0.trustedProxies = ["proxy.example"]
            }
        }
    }

    // MARK: Headers

    static let v2Local = ProxyHeader.v2Signature + [0x20, 0x00, 0x00, 0x00]

    private func v1(_ client: String) -> [UInt8] {
        Array("PROXY TCP4 \(client) 127.0.0.1 40000 51515\r\n".utf8)
    }

    private func v1tcp6(_ client: String) -> [UInt8] {
        Array("PROXY TCP6 \(client) ::1 40000 51515\r\n".utf8)
    }

    private func v2(ipv4 client: [UInt8]) -> [UInt8] {
        let block = client + [127, 0, 0, 1] + [0x9C, 0x40, 0xC9, 0x3B]
        return ProxyHeader.v2Signature + [0x21, 0x11, 0x00, UInt8(block.count)] + block
    }
}

@Suite("TrustedProxies")
struct TrustedProxiesTests {
    @Test func addressesAndNetworks() throws {
        let trusted = try TrustedProxies(["10.0.0.0/8", "192.168.1.7", "fd00::/8", "::1"])
        for address in ["10.0.0.1", "10.255.1.2", "192.168.1.7", "fd12::5", "::1", "::ffff:10.1.1.1"] {
            #expect(trusted.contains(try SocketAddress(ip: address, port: 1)), "\(address)")
        }
        for address in ["11.0.0.1", "192.168.1.8", "fe80::1", "::2", "127.0.0.1"] {
            #expect(!trusted.contains(try SocketAddress(ip: address, port: 1)), "\(address)")
        }
        #expect(try TrustedProxies(["0.0.0.0/0"]).contains(try SocketAddress(ip: "8.8.8.8", port: 1)))
        #expect(try TrustedProxies(["10.1.2.3/31"]).contains(try SocketAddress(ip: "10.1.2.2", port: 1)))
        #expect(try !TrustedProxies([]).contains(try SocketAddress(ip: "127.0.0.1", port: 1)))
    }

    @Test func badEntries() {
        #expect(throws: TrustedProxies.ParseError.notAnAddress("localhost")) { try TrustedProxies(["localhost"]) }
        #expect(throws: TrustedProxies.ParseError.notAnAddress("[::1]")) { try TrustedProxies(["[::1]"]) }
        #expect(throws: TrustedProxies.ParseError.badPrefixLength("10.0.0.0/33")) { try TrustedProxies(["10.0.0.0/33"]) }
        #expect(throws: TrustedProxies.ParseError.badPrefixLength("::/129")) { try TrustedProxies(["::/129"]) }
        #expect(throws: TrustedProxies.ParseError.badPrefixLength("10.0.0.0/")) { try TrustedProxies(["10.0.0.0/"]) }
        #expect(throws: TrustedProxies.ParseError.badPrefixLength("10.0.0.0/-1")) { try TrustedProxies(["10.0.0.0/-1"]) }
    }
}

/// A client named by a PROXY header is formatted and counted exactly like
/// one connecting directly.
@Suite("SocketAddress from header bytes")
struct SocketAddressFromBytesTests {
    @Test(arguments: ["127.0.0.2", "0.0.0.0", "255.255.255.255", "::1", "2001:db8::7", "fe80::1:2", "::ffff:10.0.0.1",
                      "1:2:3:4:5:6:7:8", "::1.2.3.4", "2001:db8:0:0:1:0:0:1"])
    func sameHostAndKeyAsAParsedAddress(_ text: String) throws {
        let parsed = try SocketAddress(ip: text, port: 9)
        let raw: [UInt8] = parsed.family == AF_INET6 ? parsed.withSockaddr { pointer, _ in
            pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } }
        } : parsed.ipBytes
        let built = try #require(SocketAddress(ipBytes: raw, port: 9))
        #expect(built.host == parsed.host)
        #expect(built == parsed)
        #expect(SocketAddress(ipBytes: [1, 2, 3], port: 9) == nil)
    }
}
