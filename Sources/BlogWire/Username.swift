/// A username that passed the rules of docs/protocol.md: 1 to 32 characters of
/// `A-Z a-z 0-9 _ -`, starting with a letter or digit.
///
/// The rules also make it a safe file name: no `/`, no `.`, no NUL, so a
/// page path built from it cannot leave the public folder.
public struct Username: Hashable, Sendable, CustomStringConvertible {
    public static let maxLength = 32

    /// The name as the user typed it; pages keep this case.
    public let value: String

    /// Names are unique regardless of case; this is the form to compare
    /// (kept, not computed: leases, sessions and caches ask for it often).
    public let key: String

    public var description: String { value }

    public init(_ value: String) throws(FieldError) {
        let bytes = Array(value.utf8)
        guard let first = bytes.first else { throw .emptyUsername }
        guard bytes.count <= Self.maxLength else { throw .usernameTooLong }
        guard Self.isAlphanumeric(first),
              bytes.allSatisfy({ Self.isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else { throw .usernameCharacters }
        self.value = value
        self.key = value.lowercased()
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
