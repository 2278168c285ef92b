/// The text form: `PROXY TCP4 192.0.2.1 198.51.100.1 56324 443\r\n`.
enum ProxyHeaderV1 {
    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " ")

    static func parse(_ bytes: UnsafeRawBufferPointer) -> ProxyHeader.ParseResult {
        let prefix = ProxyHeader.v1Prefix
        let checked = min(bytes.count, prefix.count)
        guard bytes.prefix(checked).elementsEqual(prefix.prefix(checked)) else { return .invalid(.notProxyProtocol) }
        // The line ends at the first CR, which must be followed by LF; a
        // lone LF is refused rather than guessed at.
        let limit = min(bytes.count, ProxyHeader.maxV1Bytes)
        var index = prefix.count
        while index < limit {
            let byte = bytes[index]
            if byte == lf { return .invalid(.badLineEnding) }
            if byte == cr {
                guard index + 1 < ProxyHeader.maxV1Bytes else { return .invalid(.tooLong) }
                guard index + 1 < bytes.count else { return .needMore }
                guard bytes[index + 1] == lf else { return .invalid(.badLineEnding) }
                return line(UnsafeRawBufferPointer(rebasing: bytes[prefix.count..<index]), consumed: index + 2)
            }
            index += 1
        }
        return bytes.count >= ProxyHeader.maxV1Bytes ? .invalid(.tooLong) : .needMore
    }

    /// The fields after `PROXY `, without the CRLF.
    private static func line(_ text: UnsafeRawBufferPointer, consumed: Int) -> ProxyHeader.ParseResult {
        let fields = text.split(separator: space, omittingEmptySubsequences: false)
        guard let proto = fields.first else { return .invalid(.badFields) }
        if proto.elementsEqual("UNKNOWN".utf8) {
            // The specification: whatever follows UNKNOWN is to be ignored.
            return .header(ProxyHeader(version: .v1, source: nil, destination: nil), consumed: consumed)
        }
        let isV6: Bool
        if proto.elementsEqual("TCP4".utf8) {
            isV6 = false
        } else if proto.elementsEqual("TCP6".utf8) {
            isV6 = true
        } else {
            return .invalid(.unknownProtocol)
        }
        guard fields.count == 5, fields.allSatisfy({ !$0.isEmpty }) else { return .invalid(.badFields) }
        let address: (Slice<UnsafeRawBufferPointer>) -> [UInt8]? = isV6 ? { IPAddressText.ipv6($0) } : { IPAddressText.ipv4($0) }
        guard let source = address(fields[1]), let destination = address(fields[2]) else { return .invalid(.badAddress) }
        guard let sourcePort = port(fields[3]), let destinationPort = port(fields[4]) else { return .invalid(.badPort) }
        return .header(ProxyHeader(version: .v1, source: .init(address: source, port: sourcePort),
                                   destination: .init(address: destination, port: destinationPort)),
                       consumed: consumed)
    }

    /// A decimal 0–65535, no sign, no leading zeros.
    private static func port(_ text: Slice<UnsafeRawBufferPointer>) -> Int? {
        guard (1...5).contains(text.count), text.count == 1 || text.first != UInt8(ascii: "0") else { return nil }
        var value = 0
        for char in text {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(char) else { return nil }
            value = value * 10 + Int(char - UInt8(ascii: "0"))
        }
        return value <= 65535 ? value : nil
    }
}
