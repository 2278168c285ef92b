/// The binary form: the 12-byte signature, version and command, family and
/// protocol, a 16-bit length, the addresses, then TLVs (skipped).
enum ProxyHeaderV2 {
    private static let fixedBytes = 16

    static func parse(_ bytes: UnsafeRawBufferPointer) -> ProxyHeader.ParseResult {
        let signature = ProxyHeader.v2Signature
        let checked = min(bytes.count, signature.count)
        guard bytes.prefix(checked).elementsEqual(signature.prefix(checked)) else { return .invalid(.notProxyProtocol) }
        // Each field is judged as soon as it arrives, so garbage fails
        // early even when it trickles in a byte at a time.
        guard bytes.count > 12 else { return .needMore }
        let versionAndCommand = bytes[12]
        guard versionAndCommand >> 4 == 2 else { return .invalid(.unsupportedVersion(versionAndCommand >> 4)) }
        let command = versionAndCommand & 0x0F
        guard command <= 1 else { return .invalid(.unknownCommand(command)) }
        guard bytes.count > 13 else { return .needMore }
        let family = bytes[13]
        // LOCAL ignores the family; PROXY needs one it can read.
        let addressBytes = command == 0 ? 0 : Self.addressBytes(family)
        guard let addressBytes else { return .invalid(.unsupportedFamily(family)) }
        guard bytes.count >= fixedBytes else { return .needMore }
        let length = Int(bytes[14]) << 8 | Int(bytes[15])
        let total = fixedBytes + length
        guard total <= ProxyHeader.maxV2Bytes else { return .invalid(.tooLong) }
        if command == 0 {
            // LOCAL: the proxy's own connection (a health check). The
            // specification says to ignore the family and the block.
            guard bytes.count >= total else { return .needMore }
            return .header(ProxyHeader(version: .v2, isLocal: true, source: nil, destination: nil), consumed: total)
        }
        guard length >= addressBytes else { return .invalid(.addressesTooShort) }
        guard bytes.count >= total else { return .needMore }
        let header: ProxyHeader
        switch family {
        case 0x11: header = addresses(bytes, size: 4)
        case 0x21: header = addresses(bytes, size: 16)
        default: header = ProxyHeader(version: .v2, source: nil, destination: nil)
        }
        return .header(header, consumed: total)
    }

    /// The address block's size for a family and protocol of the PROXY
    /// command, or nil for one the server does not take (UDP: this is a
    /// TCP port; unassigned values, which the specification says to refuse).
    private static func addressBytes(_ family: UInt8) -> Int? {
        switch family {
        case 0x00: 0      // UNSPEC: keep the connection's own address
        case 0x11: 12     // TCP over IPv4
        case 0x21: 36     // TCP over IPv6
        case 0x31: 216    // a UNIX stream socket: no IP to use
        default: nil
        }
    }

    /// Source address, destination address, source port, destination port.
    private static func addresses(_ bytes: UnsafeRawBufferPointer, size: Int) -> ProxyHeader {
        let start = fixedBytes
        let source = Array(bytes[start..<(start + size)])
        let destination = Array(bytes[(start + size)..<(start + 2 * size)])
        let ports = start + 2 * size
        let sourcePort = Int(bytes[ports]) << 8 | Int(bytes[ports + 1])
        let destinationPort = Int(bytes[ports + 2]) << 8 | Int(bytes[ports + 3])
        return ProxyHeader(version: .v2, source: .init(address: source, port: sourcePort),
                           destination: .init(address: destination, port: destinationPort))
    }
}
