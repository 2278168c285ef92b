
/// The cost of one scrypt hash. Stored beside each hash, so raising the
/// defaults later keeps old hashes verifiable.
public struct ScryptParameters: Hashable, Sendable, CustomStringConvertible {
    /// log2 of N, the CPU/memory cost.
    public var logN: Int
    /// Block size r.
    public var r: Int
    /// Parallelism p.
    public var p: Int

    /// OWASP's scrypt floor (N=2^17, r=8, p=1) traded for less memory:
    /// N=2^14, r=8, p=5 costs the same CPU with 16 MiB per hash.
    public static let standard = ScryptParameters(logN: 14, r: 8, p: 5)

    /// Cheap parameters for tests only.
    public static let testing = ScryptParameters(logN: 4, r: 8, p: 1)

    public init(logN: Int, r: Int, p: Int) {
        self.logN = logN
        self.r = r
        self.p = p
    }

    /// Whether BoringSSL will accept these parameters.
    public var isValid: Bool {
        guard (1...20).contains(logN), (1...32).contains(r), (1...16).contains(p) else { return false }
        // BoringSSL wants N < 2^(16r). swift-crypto grants 128*N*r*p bytes
        // plus one page, while BoringSSL needs 128*r*(N+p+1): with p = 1
        // that fits only while 256*r stays within a page.
        return logN < 16 * r && (p > 1 || r <= 16)
    }

    /// Memory one hash needs, in bytes (128 * r * N).
    public var memoryBytes: Int { 128 * r * (1 << logN) }

    public var description: String { "ln=\(logN),r=\(r),p=\(p)" }
}
