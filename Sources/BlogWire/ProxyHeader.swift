/// The PROXY protocol header (v1 text or v2 binary, as HAProxy sends it)
/// that a load balancer puts before the client's first byte, naming the
/// client it speaks for.
///
/// Parsing is incremental and pure: give `parse` every byte received so
/// far; it answers `.needMore` until it can decide, then the header and
/// how many bytes it took (the rest belongs to the frame decoder), or why
/// the bytes are no header.
///
///     switch ProxyHeader.parse(received) {
///     case .needMore: break                              // read on
///     case .header(let header, let consumed): ...        // received[consumed...] is the stream
///     case .invalid(let reason): ...                     // refuse and close
///     }
///
/// Specification: https://www.haproxy.org/download/3.0/doc/proxy-protocol.txt
public struct ProxyHeader: Equatable, Sendable {
    public enum Version: Int, Sendable {
        case v1 = 1
        case v2 = 2
    }

    /// One end of the connection the proxy accepted.
    public struct Endpoint: Equatable, Sendable {
        /// 4 bytes (IPv4) or 16 (IPv6), in network order.
        public let address: [UInt8]
        public let port: Int

        public init(address: [UInt8], port: Int) {
            self.address = address
            self.port = port
        }
    }

    /// What `parse` made of the bytes so far.
    public enum ParseResult: Equatable, Sendable {
        /// A prefix of a valid header: read on.
        case needMore
        /// A whole header, `consumed` bytes long.
        case header(ProxyHeader, consumed: Int)
        /// Not a header, or a malformed or oversized one.
        case invalid(ProxyHeaderError)
    }

    /// Whether a connection's first bytes start a PROXY header.
    public enum Signature: Equatable, Sendable {
        /// They begin with `PROXY ` or the v2 signature.
        case present
        /// They cannot be the start of a header.
        case absent
        /// Too few bytes yet to tell.
        case undecided
    }

    /// The longest v1 line, CRLF included (the specification's figure).
    public static let maxV1Bytes = 107
    /// The largest v2 header accepted, signature and TLVs included. The
    /// specification lets a receiver read 536 bytes safely (what HAProxy
    /// itself accepts without TLV extensions); more is refused.
    public static let maxV2Bytes = 536
    /// `PROXY ` : how every v1 line begins.
    public static let v1Prefix: [UInt8] = Array("PROXY ".utf8)
    /// The 12 bytes every v2 header begins with.
    public static let v2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    public let version: Version
    /// The proxy speaks for itself, not for a client: v2's LOCAL command,
    /// which HAProxy's `check-send-proxy` health checks send.
    public let isLocal: Bool
    /// The client's address, or nil when the connection's own address
    /// stands: LOCAL, v1 `UNKNOWN`, v2 `UNSPEC`, or a client on a UNIX socket.
    public let source: Endpoint?
    /// The address the client connected to (nil whenever `source` is).
    public let destination: Endpoint?

    public init(version: Version, isLocal: Bool = false, source: Endpoint?, destination: Endpoint?) {
        self.version = version
        self.isLocal = isLocal
        self.source = source
        self.destination = destination
    }

    /// Parses the header at the start of `bytes` (everything received so far).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> ParseResult {
        guard let first = bytes.first else { return .needMore }
        switch first {
        case v1Prefix[0]: return ProxyHeaderV1.parse(bytes)
        case v2Signature[0]: return ProxyHeaderV2.parse(bytes)
        default: return .invalid(.notProxyProtocol)
        }
    }

    /// Parses the header at the start of `bytes` (everything received so far).
    public static func parse(_ bytes: [UInt8]) -> ParseResult {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Whether `bytes`, a connection's first, start a header. Used where
    /// headers are not trusted, to refuse them rather than read them.
    public static func signature(in bytes: UnsafeRawBufferPointer) -> Signature {
        for expected in [v1Prefix, v2Signature] {
            let count = min(bytes.count, expected.count)
            guard bytes.prefix(count).elementsEqual(expected.prefix(count)) else { continue }
            return count == expected.count ? .present : .undecided
        }
        return .absent
    }

    /// Whether `bytes`, a connection's first, start a header.
    public static func signature(in bytes: [UInt8]) -> Signature {
        bytes.withUnsafeBytes { signature(in: $0) }
    }
}

/// Why bytes are not a PROXY header the server accepts.
public enum ProxyHeaderError: Error, Equatable, Sendable {
    /// Neither `PROXY ` nor the v2 signature.
    case notProxyProtocol
    /// Longer than a v1 line (107 bytes) or the v2 cap (536 bytes) allows.
    case tooLong
    /// A v1 line ended other than with CRLF, or held a stray CR or LF.
    case badLineEnding
    /// v1: fields not separated by exactly one space, or too few or many.
    case badFields
    /// v1: a protocol other than TCP4, TCP6 or UNKNOWN.
    case unknownProtocol
    /// An address that is not a strict IPv4 (TCP4) or IPv6 (TCP6) address.
    case badAddress
    /// A v1 port that is not a decimal 0–65535 without leading zeros.
    case badPort
    /// v2: a version other than 2.
    case unsupportedVersion(UInt8)
    /// v2: a command other than LOCAL (0) or PROXY (1).
    case unknownCommand(UInt8)
    /// v2: an address family and protocol other than TCP over IPv4, IPv6
    /// or a UNIX socket, or UNSPEC.
    case unsupportedFamily(UInt8)
    /// v2: a length too short for the addresses of its family.
    case addressesTooShort
}
