import Crypto
import _CryptoExtras
import Foundation

/// Hashes and verifies passwords with scrypt.
///
/// A hash is stored as one PHC-style string,
/// `$scrypt$ln=14,r=8,p=5$<salt>$<hash>` (base64), so algorithm, parameters,
/// salt and hash always travel together.
public struct PasswordHasher: Sendable {
    public enum HashError: Error, Equatable, Sendable {
        case invalidParameters
        case derivationFailed
    }

    static let saltBytes = 16
    static let hashBytes = 32

    public let parameters: ScryptParameters
    /// A hash of no real password with the current parameters: logins for
    /// unknown names verify against it, so they cost what a real one costs.
    private let decoy: String

    public init(parameters: ScryptParameters = .standard) throws(HashError) {
        guard parameters.isValid else { throw .invalidParameters }
        self.parameters = parameters
        self.decoy = try Self.hash(Array("decoy".utf8), salt: Self.randomSalt(), parameters: parameters)
    }

    /// A new salted hash of `password`.
    public func hash(_ password: String) throws(HashError) -> String {
        try Self.hash(Array(password.utf8), salt: Self.randomSalt(), parameters: parameters)
    }

    /// Whether `password` matches `stored`; a malformed `stored` never matches.
    public func verify(_ password: String, against stored: String) -> Bool {
        guard let parsed = StoredHash(stored), parsed.parameters.isValid,
              let derived = try? Self.derive(Array(password.utf8), salt: parsed.salt,
                                             parameters: parsed.parameters, count: parsed.hash.count)
        else { return false }
        return constantTimeEqual(derived, parsed.hash)
    }

    /// Burns the time of one verification, for a name that does not exist.
    public func verifyDecoy(_ password: String) {
        _ = verify(password, against: decoy)
    }

    static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<saltBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func hash(_ password: [UInt8], salt: [UInt8], parameters: ScryptParameters) throws(HashError) -> String {
        let derived = try derive(password, salt: salt, parameters: parameters, count: hashBytes)
        return StoredHash(parameters: parameters, salt: salt, hash: derived).encoded
    }

    static func derive(_ password: [UInt8], salt: [UInt8], parameters: ScryptParameters, count: Int) throws(HashError) -> [UInt8] {
        do {
            let key = try KDF.Scrypt.deriveKey(
                from: password, salt: salt, outputByteCount: count,
                rounds: 1 << parameters.logN, blockSize: parameters.r, parallelism: parameters.p)
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw .derivationFailed
        }
    }
}

/// Compares without an early exit, so timing does not tell how many leading
/// bytes of a guess were right.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
}

/// The parts of a stored `$scrypt$...` string.
struct StoredHash: Equatable {
    var parameters: ScryptParameters
    var salt: [UInt8]
    var hash: [UInt8]

    init(parameters: ScryptParameters, salt: [UInt8], hash: [UInt8]) {
        self.parameters = parameters
        self.salt = salt
        self.hash = hash
    }

    init?(_ text: String) {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { return nil }
        var values: [String: Int] = [:]
        for pair in parts[2].split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, let number = Int(kv[1]) else { return nil }
            values[String(kv[0])] = number
        }
        guard let logN = values["ln"], let r = values["r"], let p = values["p"],
              let salt = Data(base64Encoded: String(parts[3])),
              let hash = Data(base64Encoded: String(parts[4])), !hash.isEmpty
        else { return nil }
        self.init(parameters: ScryptParameters(logN: logN, r: r, p: p), salt: Array(salt), hash: Array(hash))
    }

    var encoded: String {
        "$scrypt$\(parameters)$\(Data(salt).base64EncodedString())$\(Data(hash).base64EncodedString())"
    }
}
