import BlogSockets

/// The addresses whose PROXY headers the server believes: single
/// addresses (`10.0.0.5`, `::1`) or networks (`10.0.0.0/8`, `fd00::/8`).
///
/// An IPv4-mapped IPv6 peer matches as its IPv4 address, as it counts
/// everywhere else (`SocketAddress.ipBytes`).
///
///     let trusted = try TrustedProxies(["10.0.0.0/8", "::1"])
///     trusted.contains(peer)
public struct TrustedProxies: Sendable, Equatable {
    /// One entry: the address's bytes (4 or 16) and how many leading bits count.
    struct Network: Sendable, Equatable {
        var bytes: [UInt8]
        var prefixLength: Int
    }

    /// Why an entry is not an address or network.
    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        case notAnAddress(String)
        case badPrefixLength(String)

        public var description: String {
            switch self {
            case .notAnAddress(let text): "'\(text)' is not an IPv4 or IPv6 address or network"
            case .badPrefixLength(let text): "'\(text)' has a prefix length outside its family's range"
            }
        }
    }

    let networks: [Network]

    public init(_ entries: [String]) throws(ParseError) {
        var networks: [Network] = []
        for entry in entries {
            networks.append(try Self.network(entry))
        }
        self.networks = networks
    }

    public var isEmpty: Bool { networks.isEmpty }

    /// Whether `address` is one of the trusted proxies.
    public func contains(_ address: SocketAddress) -> Bool {
        let bytes = address.ipBytes
        return networks.contains { network in
            network.bytes.count == bytes.count && Self.prefix(of: bytes, equals: network.bytes, bits: network.prefixLength)
        }
    }

    private static func network(_ entry: String) throws(ParseError) -> Network {
        let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = try? SocketAddress(ip: String(parts[0]), port: 0), !parts[0].hasPrefix("[") else {
            throw .notAnAddress(entry)
        }
        let bytes = address.ipBytes
        let maximum = bytes.count * 8
        guard parts.count == 2 else { return Network(bytes: bytes, prefixLength: maximum) }
        guard let length = Int(parts[1]), (0...maximum).contains(length), parts[1].allSatisfy(\.isASCII) else {
            throw .badPrefixLength(entry)
        }
        return Network(bytes: bytes, prefixLength: length)
    }

    private static func prefix(of bytes: [UInt8], equals network: [UInt8], bits: Int) -> Bool {
        var remaining = bits
        for (byte, expected) in zip(bytes, network) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            guard byte & mask == expected & mask else { return false }
            remaining -= 8
        }
        return true
    }
}
