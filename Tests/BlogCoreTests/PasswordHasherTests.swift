import Foundation
import Testing
@testable import BlogAuth
@testable import BlogCore

@Suite("PasswordHasher")
struct PasswordHasherTests {
    private static func hex(_ text: String) -> [UInt8] {
        let digits = text.filter { !$0.isWhitespace }
        var out: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            out.append(UInt8(digits[index ..< next], radix: 16)!)
            index = next
        }
        return out
    }

    private let hasher: PasswordHasher

    init() throws {
        hasher = try PasswordHasher(parameters: .testing)
    }

    // MARK: Stored form

    @Test func hashHasPHCForm() throws {
        let stored = try hasher.hash("mojeHeslo")
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        #expect(parts.count == 5)
        #expect(parts[0] == "")
        #expect(parts[1] == "scrypt")
        #expect(parts[2] == "ln=4,r=8,p=1")
        let salt = try #require(Data(base64Encoded: String(parts[3])))
        let hash = try #require(Data(base64Encoded: String(parts[4])))
        #expect(salt.count == 16)
        #expect(hash.count == 32)
        #expect(stored.wholeMatch(of: /\$scrypt\$ln=\d+,r=\d+,p=\d+\$[A-Za-z0-9+\/=]+\$[A-Za-z0-9+\/=]+/) != nil)
        #expect(!stored.contains("mojeHeslo"))
    }

    @Test func storedHashRoundTrip() throws {
        let stored = try hasher.hash("pw")
        let parsed = try #require(StoredHash(stored))
        #expect(parsed.parameters == .testing)
        #expect(parsed.encoded == stored)
    }

    @Test func parametersAreRecorded() throws {
        let custom = ScryptParameters(logN: 5, r: 4, p: 2)
        let stored = try PasswordHasher(parameters: custom).hash("x")
        #expect(stored.hasPrefix("$scrypt$ln=5,r=4,p=2$"))
    }

    @Test func samePasswordHashesDiffer() throws {
        let first = try hasher.hash("same")
        let second = try hasher.hash("same")
        #expect(first != second)
        #expect(StoredHash(first)?.salt != StoredHash(second)?.salt)
        #expect(hasher.verify("same", against: first))
        #expect(hasher.verify("same", against: second))
    }

    // MARK: Verification

    @Test func verifyRightAndWrong() throws {
        let stored = try hasher.hash("mojeHeslo")
        #expect(hasher.verify("mojeHeslo", against: stored))
        #expect(!hasher.verify("mojeheslo", against: stored))
        #expect(!hasher.verify("mojeHeslo ", against: stored))
        #expect(!hasher.verify("", against: stored))
        #expect(!hasher.verify("wrong", against: stored))
    }

    @Test func verifyNonASCIIAndColons() throws {
        for password in ["heslo:s:dvojtečkou", "ünïcödé 😀", String(repeating: "é", count: 128), "nul\u{0}byte"] {
            let stored = try hasher.hash(password)
            #expect(hasher.verify(password, against: stored))
            #expect(!hasher.verify(password + "x", against: stored))
        }
        // NUL is not a terminator: the bytes after it count.
        let stored = try hasher.hash("nul\u{0}byte")
        #expect(!hasher.verify("nul\u{0}bytf", against: stored))
        #expect(!hasher.verify("nul", against: stored))
    }

    @Test func hashWithOtherParametersStillVerifies() throws {
        let other = try PasswordHasher(parameters: ScryptParameters(logN: 6, r: 4, p: 2))
        let stored = try other.hash("secret")
        #expect(hasher.verify("secret", against: stored))
        #expect(!hasher.verify("secret!", against: stored))
        // And the other way round.
        let mine = try hasher.hash("secret")
        #expect(other.verify("secret", against: mine))
    }

    @Test func decoyNeverMatchesARealPassword() {
        // verifyDecoy only burns time; it must not crash on any input.
        hasher.verifyDecoy("")
        hasher.verifyDecoy("decoy")
        hasher.verifyDecoy(String(repeating: "x", count: 256))
    }

    @Test func malformedStoredStringsNeverVerify() throws {
        let good = try hasher.hash("pw")
        let parts = good.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        let salt = parts[3], hash = parts[4]
        let malformed = [
            "", "pw", "$", "$$$$", "$scrypt$", "scrypt$ln=4,r=8,p=1$\(salt)$\(hash)",
            "$argon2$ln=4,r=8,p=1$\(salt)$\(hash)",
            "$SCRYPT$ln=4,r=8,p=1$\(salt)$\(hash)",
            "$scrypt$ln=4,r=8$\(salt)$\(hash)",
            "$scrypt$ln=4,p=1$\(salt)$\(hash)",
            "$scrypt$r=8,p=1$\(salt)$\(hash)",
            "$scrypt$ln=x,r=8,p=1$\(salt)$\(hash)",
            "$scrypt$ln=4,r=8,p=1$\(salt)$",
            "$scrypt$ln=4,r=8,p=1$\(salt)",
            "$scrypt$ln=4,r=8,p=1$!!!$\(hash)",
            "$scrypt$ln=4,r=8,p=1$\(salt)$%%%",
            "$scrypt$ln=4,r=8,p=1$\(salt)$\(hash)$",
            "x$scrypt$ln=4,r=8,p=1$\(salt)$\(hash)",
            "$scrypt$ln=0,r=8,p=1$\(salt)$\(hash)",
            "$scrypt$ln=21,r=8,p=1$\(salt)$\(hash)",
            "$scrypt$ln=-4,r=8,p=1$\(salt)$\(hash)",
            "$scrypt$ln=4,r=0,p=1$\(salt)$\(hash)",
            "$scrypt$ln=4,r=8,p=0$\(salt)$\(hash)",
            "$scrypt$ln=4,r=8,p=99$\(salt)$\(hash)",
            "$scrypt$ln=99999999999999999999999,r=8,p=1$\(salt)$\(hash)",
            // Well formed, but the parameters do not match the hash.
            "$scrypt$ln=5,r=8,p=1$\(salt)$\(hash)",
        ]
        for stored in malformed {
            #expect(!hasher.verify("pw", against: stored), "\(stored)")
        }
        #expect(hasher.verify("pw", against: good))
    }

    @Test func tamperedHashOrSaltDoesNotVerify() throws {
        let good = try hasher.hash("pw")
        var parsed = try #require(StoredHash(good))
        parsed.hash[0] ^= 0x01
        #expect(!hasher.verify("pw", against: parsed.encoded))
        parsed.hash[0] ^= 0x01
        parsed.salt[15] ^= 0x80
        #expect(!hasher.verify("pw", against: parsed.encoded))
        parsed.salt[15] ^= 0x80
        #expect(hasher.verify("pw", against: parsed.encoded))
    }

    // MARK: Parameters

    @Test(arguments: [
        ScryptParameters(logN: 0, r: 8, p: 1), ScryptParameters(logN: 21, r: 8, p: 1),
        ScryptParameters(logN: -1, r: 8, p: 1), ScryptParameters(logN: 4, r: 0, p: 1),
        ScryptParameters(logN: 4, r: 33, p: 1), ScryptParameters(logN: 4, r: 8, p: 0),
        ScryptParameters(logN: 4, r: 8, p: 17),
    ])
    func invalidParametersThrow(parameters: ScryptParameters) {
        #expect(!parameters.isValid)
        #expect(throws: PasswordHasher.HashError.invalidParameters) {
            try PasswordHasher(parameters: parameters)
        }
    }

    @Test func parameterValues() {
        #expect(ScryptParameters.standard == ScryptParameters(logN: 14, r: 8, p: 5))
        #expect(ScryptParameters.standard.isValid)
        #expect(ScryptParameters.testing.isValid)
        #expect(ScryptParameters.standard.memoryBytes == 16 << 20)
        #expect(ScryptParameters.testing.memoryBytes == 128 * 8 * 16)
        #expect(ScryptParameters.standard.description == "ln=14,r=8,p=5")
        #expect(ScryptParameters(logN: 1, r: 1, p: 1).isValid)
        #expect(ScryptParameters(logN: 20, r: 32, p: 16).isValid)
    }

    /// `isValid` promises "BoringSSL will accept these parameters": sets
    /// BoringSSL refuses must be called invalid up front, not fail later.
    @Test(arguments: [
        ScryptParameters(logN: 16, r: 1, p: 1),   // BoringSSL needs N < 2^(16r)
        ScryptParameters(logN: 4, r: 17, p: 1),   // swift-crypto's memory limit for p = 1 is too tight when r > 16
        ScryptParameters(logN: 4, r: 32, p: 1),
    ])
    func parametersBoringSSLRefusesAreInvalid(parameters: ScryptParameters) {
        #expect(!parameters.isValid)
        #expect(throws: PasswordHasher.HashError.invalidParameters) {
            _ = try PasswordHasher(parameters: parameters)
        }
    }

    /// And the sets it calls valid really hash (these are all cheap).
    @Test(arguments: [
        ScryptParameters(logN: 15, r: 1, p: 1),
        ScryptParameters(logN: 4, r: 16, p: 1),
        ScryptParameters(logN: 4, r: 17, p: 2),
        ScryptParameters(logN: 4, r: 32, p: 16),
    ])
    func parametersCalledValidCanHash(parameters: ScryptParameters) {
        #expect(parameters.isValid)
        #expect(throws: Never.self) {
            _ = try PasswordHasher(parameters: parameters).hash("pw")
        }
    }

    // MARK: Known answers (RFC 7914, section 12)

    @Test func rfc7914EmptyPasswordVector() throws {
        let key = try PasswordHasher.derive([], salt: [], parameters: ScryptParameters(logN: 4, r: 1, p: 1), count: 64)
        #expect(key == Self.hex("""
            77 d6 57 62 38 65 7b 20 3b 19 ca 42 c1 8a 04 97 f1 6b 48 44 e3 07 4a e8 df df fa 3f ed e2 14 42
            fc d0 06 9d ed 09 48 f8 32 6a 75 3a 0f c8 1f 17 e8 d3 e0 fb 2e 0d 36 28 cf 35 e2 0c 38 d1 89 06
            """))
    }

    @Test func rfc7914PasswordNaClVector() throws {
        let key = try PasswordHasher.derive(bytes("password"), salt: bytes("NaCl"),
                                            parameters: ScryptParameters(logN: 10, r: 8, p: 16), count: 64)
        #expect(key == Self.hex("""
            fd ba be 1c 9d 34 72 00 78 56 e7 19 0d 01 e9 fe 7c 6a d7 cb c8 23 78 30 e7 73 76 63 4b 37 31 62
            2e af 30 d9 2e 22 a3 88 6f f1 09 27 9d 98 30 da c7 27 af b9 4a 83 ee 6d 83 60 cb df a2 cc 06 40
            """))
    }

    @Test func storedHashUsesTheScryptKey() throws {
        // The stored hash is exactly the first 32 bytes of scrypt(password, salt).
        let stored = try hasher.hash("password")
        let parsed = try #require(StoredHash(stored))
        let key = try PasswordHasher.derive(bytes("password"), salt: parsed.salt, parameters: .testing, count: 32)
        #expect(key == parsed.hash)
    }

    /// The one test at the real cost: a hash made with `.standard` verifies.
    @Test func standardCostHashVerifies() throws {
        let salt = PasswordHasher.randomSalt()
        let stored = try PasswordHasher.hash(bytes("mojeHeslo"), salt: salt, parameters: .standard)
        #expect(stored.hasPrefix("$scrypt$ln=14,r=8,p=5$"))
        // Verifying costs one more standard derivation, whatever the
        // verifier's own parameters: they travel with the hash.
        #expect(hasher.verify("mojeHeslo", against: stored))
    }

    // MARK: constantTimeEqual

    @Test func constantTimeEquality() {
        #expect(constantTimeEqual([], []))
        #expect(constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEqual([0, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(!constantTimeEqual([1, 2], [1, 2, 3]))
        #expect(!constantTimeEqual([], [0]))
        #expect(!constantTimeEqual([0x80], [0x00]))
        let big = (0 ..< 1000).map { UInt8(truncatingIfNeeded: $0) }
        var other = big
        #expect(constantTimeEqual(big, other))
        other[999] ^= 1
        #expect(!constantTimeEqual(big, other))
    }

    @Test func randomSaltIsRandom() {
        let salts = (0 ..< 20).map { _ in PasswordHasher.randomSalt() }
        #expect(salts.allSatisfy { $0.count == 16 })
        #expect(Set(salts).count == 20)
    }
}
