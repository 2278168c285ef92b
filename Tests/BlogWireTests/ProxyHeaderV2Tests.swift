import Testing
@testable import BlogWire

@Suite("ProxyHeader v2: the binary header")
struct ProxyHeaderV2Tests {
    @Test func tcp4() {
        let header = proxyV2(family: 0x11, block: addressBlock([127, 0, 0, 2], [127, 0, 0, 1], 56324, 51515))
        #expect(header.count == 28)
        #expect(ProxyHeader.parse(header) == .header(
            ProxyHeader(version: .v2, source: .init(address: [127, 0, 0, 2], port: 56324),
                        destination: .init(address: [127, 0, 0, 1], port: 51515)),
            consumed: 28))
    }

    @Test func tcp6() {
        let source: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [7]
        let header = proxyV2(family: 0x21, block: addressBlock(source, loopback6, 1, 2))
        #expect(ProxyHeader.parse(header) == .header(
            ProxyHeader(version: .v2, source: .init(address: source, port: 1), destination: .init(address: loopback6, port: 2)),
            consumed: 52))
    }

    /// HAProxy's `check-send-proxy` health checks: LOCAL, usually UNSPEC
    /// with no block, whatever the family says.
    @Test func localKeepsTheConnectionsOwnAddress() {
        let local = ProxyHeader(version: .v2, isLocal: true, source: nil, destination: nil)
        #expect(ProxyHeader.parse(proxyV2(command: 0, family: 0x00, block: [])) == .header(local, consumed: 16))
        let withBlock = proxyV2(command: 0, family: 0x11, block: addressBlock([1, 2, 3, 4], [5, 6, 7, 8], 1, 2))
        #expect(ProxyHeader.parse(withBlock) == .header(local, consumed: 28))
        // Even a family that PROXY would refuse: LOCAL ignores it.
        #expect(ProxyHeader.parse(proxyV2(command: 0, family: 0x99, block: [1, 2])) == .header(local, consumed: 18))
    }

    @Test func unspecAndUnixKeepTheConnectionsOwnAddress() {
        let own = ProxyHeader(version: .v2, source: nil, destination: nil)
        #expect(ProxyHeader.parse(proxyV2(family: 0x00, block: [])) == .header(own, consumed: 16))
        #expect(ProxyHeader.parse(proxyV2(family: 0x00, block: [9, 9, 9])) == .header(own, consumed: 19))
        #expect(ProxyHeader.parse(proxyV2(family: 0x31, block: [UInt8](repeating: 0, count: 216))) == .header(own, consumed: 232))
    }

    /// HAProxy appends TLVs (ALPN, unique id, SSL...) after the addresses.
    @Test func tlvsAreSkipped() {
        let tlv: [UInt8] = [0x01, 0x00, 0x02, 0x68, 0x32, 0x05, 0x00, 0x03, 0x61, 0x62, 0x63]
        let header = proxyV2(family: 0x11, block: addressBlock([10, 0, 0, 9], [10, 0, 0, 1], 1000, 51515) + tlv)
        #expect(ProxyHeader.parse(header) == .header(
            ProxyHeader(version: .v2, source: .init(address: [10, 0, 0, 9], port: 1000),
                        destination: .init(address: [10, 0, 0, 1], port: 51515)),
            consumed: 28 + tlv.count))
    }

    @Test func byteAtATime() {
        let header = proxyV2(family: 0x21, block: addressBlock(loopback6, loopback6, 5, 6) + [0x04, 0x00, 0x00])
        let (before, last) = parsedByteByByte(header)
        #expect(before.allSatisfy { $0 == .needMore })
        #expect(last == .header(ProxyHeader(version: .v2, source: .init(address: loopback6, port: 5),
                                            destination: .init(address: loopback6, port: 6)),
                                consumed: header.count))
    }

    @Test func theFirstMessageInTheSameReadIsLeftForTheDecoder() {
        let header = proxyV2(family: 0x11, block: addressBlock([127, 0, 0, 2], [127, 0, 0, 1], 1, 2))
        let stream = header + bytes("newpost:a:T:text[E];")
        guard case .header(_, let consumed) = ProxyHeader.parse(stream) else { Issue.record("not parsed"); return }
        #expect(Array(stream[consumed...]) == bytes("newpost:a:T:text[E];"))
    }

    @Test func theLargestAcceptedHeaderAndOneByteMore() {
        let fits = proxyV2(family: 0x11, block: addressBlock([1, 2, 3, 4], [1, 2, 3, 4], 1, 2) + [UInt8](repeating: 0, count: 536 - 28))
        #expect(fits.count == ProxyHeader.maxV2Bytes)
        guard case .header(_, consumed: 536) = ProxyHeader.parse(fits) else { Issue.record("not parsed"); return }
        let over = proxyV2(family: 0x11, block: addressBlock([1, 2, 3, 4], [1, 2, 3, 4], 1, 2) + [UInt8](repeating: 0, count: 537 - 28))
        #expect(ProxyHeader.parse(over) == .invalid(.tooLong))
        // Refused as soon as the length is read, without waiting for the block.
        #expect(ProxyHeader.parse(Array(over.prefix(16))) == .invalid(.tooLong))
        #expect(ProxyHeader.parse(ProxyHeader.v2Signature + [0x21, 0x11, 0xFF, 0xFF]) == .invalid(.tooLong))
    }

    @Test func malformed() {
        let good = addressBlock([1, 2, 3, 4], [5, 6, 7, 8], 1, 2)
        var badSignature = proxyV2(family: 0x11, block: good)
        badSignature[7] = 0x00
        #expect(ProxyHeader.parse(badSignature) == .invalid(.notProxyProtocol))
        #expect(ProxyHeader.parse([0x0D, 0x0A, 0x0D, 0x0A, 0x01]) == .invalid(.notProxyProtocol))
        #expect(ProxyHeader.parse(bytes("\r\nlogin:a:b[E];")) == .invalid(.notProxyProtocol))
        // Version 1 in binary, version 3.
        #expect(ProxyHeader.parse(ProxyHeader.v2Signature + [0x11]) == .invalid(.unsupportedVersion(1)))
        #expect(ProxyHeader.parse(ProxyHeader.v2Signature + [0x31]) == .invalid(.unsupportedVersion(3)))
        #expect(ProxyHeader.parse(ProxyHeader.v2Signature + [0x22]) == .invalid(.unknownCommand(2)))
        #expect(ProxyHeader.parse(ProxyHeader.v2Signature + [0x2F]) == .invalid(.unknownCommand(15)))
        // UDP, UNIX datagrams, made-up families.
        for family: UInt8 in [0x12, 0x22, 0x32, 0x10, 0x20, 0x41, 0x01, 0xFF] {
            #expect(ProxyHeader.parse(proxyV2(family: family, block: good)) == .invalid(.unsupportedFamily(family)), "\(family)")
        }
        // A length shorter than the family's addresses.
        #expect(ProxyHeader.parse(proxyV2(family: 0x11, block: Array(good.prefix(11)))) == .invalid(.addressesTooShort))
        #expect(ProxyHeader.parse(proxyV2(family: 0x21, block: good)) == .invalid(.addressesTooShort))
        #expect(ProxyHeader.parse(proxyV2(family: 0x31, block: good)) == .invalid(.addressesTooShort))
    }

    /// Garbage trickling in fails at the first byte that gives it away.
    @Test func errorsAreFoundAsSoonAsTheirByteArrives() {
        #expect(ProxyHeader.parse(ProxyHeader.v2Signature) == .needMore)
        #expect(ProxyHeader.parse(ProxyHeader.v2Signature + [0x21]) == .needMore)
        #expect(ProxyHeader.parse(ProxyHeader.v2Signature + [0x21, 0x11, 0x00]) == .needMore)
        #expect(ProxyHeader.parse(ProxyHeader.v2Signature + [0x21, 0x99]) == .invalid(.unsupportedFamily(0x99)))
        // A declared block not yet all here.
        #expect(ProxyHeader.parse(ProxyHeader.v2Signature + [0x21, 0x11, 0x00, 0x0C, 1, 2, 3]) == .needMore)
    }
}
