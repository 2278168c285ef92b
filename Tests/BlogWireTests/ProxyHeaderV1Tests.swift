import Testing
@testable import BlogWire

@Suite("ProxyHeader v1: the text line")
struct ProxyHeaderV1Tests {
    @Test func tcp4() {
        let line = bytes("PROXY TCP4 127.0.0.2 127.0.0.1 56324 51515\r\n")
        #expect(ProxyHeader.parse(line) == .header(
            ProxyHeader(version: .v1, source: .init(address: [127, 0, 0, 2], port: 56324),
                        destination: .init(address: [127, 0, 0, 1], port: 51515)),
            consumed: line.count))
    }

    @Test func tcp6() {
        let line = bytes("PROXY TCP6 ::ffff:127.0.0.2 ::1 1 65535\r\n")
        let mapped = [UInt8](repeating: 0, count: 10) + [0xff, 0xff, 127, 0, 0, 2]
        #expect(ProxyHeader.parse(line) == .header(
            ProxyHeader(version: .v1, source: .init(address: mapped, port: 1), destination: .init(address: loopback6, port: 65535)),
            consumed: line.count))
    }

    @Test func unknownKeepsTheConnectionsOwnAddressAndIgnoresTheRest() {
        for text in ["PROXY UNKNOWN\r\n", "PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n"] {
            let line = bytes(text)
            #expect(ProxyHeader.parse(line) == .header(ProxyHeader(version: .v1, source: nil, destination: nil), consumed: line.count))
        }
    }

    /// The specification's worst case, UNKNOWN with two full IPv6
    /// addresses, is exactly the 107-byte limit; the longest TCP6 line fits.
    @Test func theLongestLinesFit() {
        let full = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"
        let unknown = bytes("PROXY UNKNOWN \(full) \(full) 65535 65535\r\n")
        #expect(unknown.count == ProxyHeader.maxV1Bytes)
        #expect(ProxyHeader.parse(unknown) == .header(ProxyHeader(version: .v1, source: nil, destination: nil), consumed: 107))
        let tcp6 = bytes("PROXY TCP6 \(full) \(full) 65535 65535\r\n")
        let all = [UInt8](repeating: 0xFF, count: 16)
        #expect(ProxyHeader.parse(tcp6) == .header(
            ProxyHeader(version: .v1, source: .init(address: all, port: 65535), destination: .init(address: all, port: 65535)),
            consumed: tcp6.count))
    }

    @Test func oneByteMoreIsTooLong() {
        let unknown = bytes("PROXY UNKNOWN " + String(repeating: "x", count: 92) + "\r\n")
        #expect(unknown.count == 108)
        #expect(ProxyHeader.parse(unknown) == .invalid(.tooLong))
        // Without any line end, 107 bytes are enough to give up.
        let endless = bytes("PROXY UNKNOWN " + String(repeating: "x", count: 93))
        #expect(endless.count == 107)
        #expect(ProxyHeader.parse(endless) == .invalid(.tooLong))
        #expect(ProxyHeader.parse(Array(endless.dropLast())) == .needMore)
        #expect(ProxyHeader.parse(endless + bytes(String(repeating: "x", count: 5000))) == .invalid(.tooLong))
    }

    @Test func byteAtATime() {
        let line = bytes("PROXY TCP4 10.1.2.3 10.0.0.1 4000 51515\r\n")
        let (before, last) = parsedByteByByte(line)
        #expect(before.allSatisfy { $0 == .needMore })
        #expect(last == .header(ProxyHeader(version: .v1, source: .init(address: [10, 1, 2, 3], port: 4000),
                                            destination: .init(address: [10, 0, 0, 1], port: 51515)),
                                consumed: line.count))
    }

    @Test func theFirstMessageInTheSameReadIsLeftForTheDecoder() {
        let line = bytes("PROXY TCP4 10.1.2.3 10.0.0.1 4000 51515\r\n")
        let stream = line + bytes("login:alice:pw[E];")
        guard case .header(_, let consumed) = ProxyHeader.parse(stream) else { Issue.record("not parsed"); return }
        #expect(consumed == line.count)
        #expect(Array(stream[consumed...]) == bytes("login:alice:pw[E];"))
    }

    @Test(arguments: [
        ("GET / HTTP/1.0\r\n", ProxyHeaderError.notProxyProtocol),
        ("PROXYX", .notProxyProtocol),
        ("proxy TCP4 1.2.3.4 1.2.3.4 1 2\r\n", .notProxyProtocol),
        ("PROXY TCP4 1.2.3.4 1.2.3.4 1 2\n", .badLineEnding),
        ("PROXY TCP4 1.2.3.4 1.2.3.4 1 2\r\r\n", .badLineEnding),
        ("PROXY TCP4 1.2.3.4\n1.2.3.4 1 2\r\n", .badLineEnding),
        ("PROXY TCP4 1.2.3.4 1.2.3.4 1 2\rX", .badLineEnding),
        ("PROXY \r\n", .unknownProtocol),
        ("PROXY TCP5 1.2.3.4 1.2.3.4 1 2\r\n", .unknownProtocol),
        ("PROXY tcp4 1.2.3.4 1.2.3.4 1 2\r\n", .unknownProtocol),
        ("PROXY UDP4 1.2.3.4 1.2.3.4 1 2\r\n", .unknownProtocol),
        ("PROXY  TCP4 1.2.3.4 1.2.3.4 1 2\r\n", .unknownProtocol),
        ("PROXY TCP4 1.2.3.4 1.2.3.4 1 2 \r\n", .badFields),
        ("PROXY TCP4 1.2.3.4  1.2.3.4 1 2\r\n", .badFields),
        ("PROXY TCP4 1.2.3.4 1.2.3.4 1\r\n", .badFields),
        ("PROXY TCP4 1.2.3.4 1.2.3.4 1 2 3\r\n", .badFields),
        ("PROXY TCP4\r\n", .badFields),
        ("PROXY TCP4 1.2.3.4\t1.2.3.4 1 2\r\n", .badFields),
        ("PROXY TCP4 ::1 1.2.3.4 1 2\r\n", .badAddress),
        ("PROXY TCP6 1.2.3.4 ::1 1 2\r\n", .badAddress),
        ("PROXY TCP4 1.2.3.256 1.2.3.4 1 2\r\n", .badAddress),
        ("PROXY TCP4 01.2.3.4 1.2.3.4 1 2\r\n", .badAddress),
        ("PROXY TCP4 localhost 1.2.3.4 1 2\r\n", .badAddress),
        ("PROXY TCP6 [::1] ::1 1 2\r\n", .badAddress),
        ("PROXY TCP4 1.2.3.4 1.2.3.4 65536 2\r\n", .badPort),
        ("PROXY TCP4 1.2.3.4 1.2.3.4 01 2\r\n", .badPort),
        ("PROXY TCP4 1.2.3.4 1.2.3.4 -1 2\r\n", .badPort),
        ("PROXY TCP4 1.2.3.4 1.2.3.4 +1 2\r\n", .badPort),
        ("PROXY TCP4 1.2.3.4 1.2.3.4 1 0x10\r\n", .badPort),
        ("PROXY TCP4 1.2.3.4 1.2.3.4 1 999999\r\n", .badPort),
    ] as [(String, ProxyHeaderError)])
    func malformed(_ text: String, _ reason: ProxyHeaderError) {
        #expect(ProxyHeader.parse(bytes(text)) == .invalid(reason))
    }

    /// A bad byte is refused as soon as it arrives, not after 107.
    @Test func aWrongPrefixFailsAtItsFirstByte() {
        #expect(ProxyHeader.parse(bytes("PRX")) == .invalid(.notProxyProtocol))
        #expect(ProxyHeader.parse(bytes("PROX")) == .needMore)
        #expect(ProxyHeader.parse(bytes("")) == .needMore)
        #expect(ProxyHeader.parse(bytes("x")) == .invalid(.notProxyProtocol))
    }

    @Test func portZeroAndTheLimitsAreFine() {
        let line = bytes("PROXY TCP4 1.2.3.4 5.6.7.8 0 65535\r\n")
        #expect(ProxyHeader.parse(line) == .header(
            ProxyHeader(version: .v1, source: .init(address: [1, 2, 3, 4], port: 0), destination: .init(address: [5, 6, 7, 8], port: 65535)),
            consumed: line.count))
    }

    @Test func signatureDetection() {
        #expect(ProxyHeader.signature(in: bytes("PROXY ")) == .present)
        #expect(ProxyHeader.signature(in: bytes("PROXY TCP4")) == .present)
        #expect(ProxyHeader.signature(in: bytes("PROX")) == .undecided)
        #expect(ProxyHeader.signature(in: bytes("")) == .undecided)
        #expect(ProxyHeader.signature(in: bytes("PROXY:a:b[E];")) == .absent)
        #expect(ProxyHeader.signature(in: bytes("login:a:b[E];")) == .absent)
        #expect(ProxyHeader.signature(in: ProxyHeader.v2Signature) == .present)
        #expect(ProxyHeader.signature(in: Array(ProxyHeader.v2Signature.prefix(11))) == .undecided)
        #expect(ProxyHeader.signature(in: bytes("\r\n\r\nlogin")) == .absent)
        #expect(ProxyHeader.signature(in: bytes("\r\n  login")) == .absent)
    }
}
