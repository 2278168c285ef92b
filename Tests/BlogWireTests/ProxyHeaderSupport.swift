@testable import BlogWire

/// A PROXY v2 header as HAProxy writes it: signature, version 2 and
/// `command`, `family`, the length of `block`, then `block`.
func proxyV2(command: UInt8 = 0x1, family: UInt8, block: [UInt8]) -> [UInt8] {
    ProxyHeader.v2Signature + [0x20 | command, family, UInt8(block.count >> 8), UInt8(block.count & 0xFF)] + block
}

/// The address block of TCP over IPv4 or IPv6: source, destination, ports.
func addressBlock(_ source: [UInt8], _ destination: [UInt8], _ sourcePort: Int, _ destinationPort: Int) -> [UInt8] {
    source + destination + [UInt8(sourcePort >> 8), UInt8(sourcePort & 0xFF),
                            UInt8(destinationPort >> 8), UInt8(destinationPort & 0xFF)]
}

/// What `parse` says after each byte of `bytes` arrives on its own: every
/// answer but the last, then the last.
func parsedByteByByte(_ bytes: [UInt8]) -> (before: [ProxyHeader.ParseResult], last: ProxyHeader.ParseResult) {
    var results: [ProxyHeader.ParseResult] = []
    for end in 1...bytes.count {
        results.append(ProxyHeader.parse(Array(bytes[..<end])))
    }
    return (Array(results.dropLast()), results.last!)
}

let loopback6: [UInt8] = [UInt8](repeating: 0, count: 15) + [1]
