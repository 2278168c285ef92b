/// The rules of docs/protocol.md for the fields other than the username.
public enum FieldRules {
    public static let maxPasswordBytes = 256
    public static let maxTitleCharacters = 200

    /// PASSWORD: 1 to 256 bytes, any characters.
    public static func password(_ value: String) throws(FieldError) -> String {
        guard !value.isEmpty else { throw .emptyPassword }
        guard value.utf8.count <= maxPasswordBytes else { throw .passwordTooLong }
        return value
    }

    /// TITLE: 1 to 200 characters, not only whitespace, on one line.
    ///
    /// A character is a Unicode code point (scalar), as both SQLite's
    /// `length()` and PostgreSQL's `char_length()` count them, so the rule
    /// and the schema's CHECK agree: a flag (two code points) counts two, a
    /// letter with a combining accent counts two.
    public static func title(_ value: String) throws(FieldError) -> String {
        guard !value.allSatisfy(\.isWhitespace) else { throw .emptyTitle }
        guard value.unicodeScalars.count <= maxTitleCharacters else { throw .titleTooLong }
        guard !value.utf8.contains(where: isControl) else { throw .controlCharacters }
        return value
    }

    /// CONTENT: may be empty; tabs and line breaks are kept, other control
    /// characters (NUL, escape sequences) are refused rather than stored.
    public static func content(_ value: String) throws(FieldError) -> String {
        guard !value.utf8.contains(where: { isControl($0) && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else {
            throw .controlCharacters
        }
        return value
    }

    /// ID: a post id, 1 to 18 ASCII digits, not zero (so it fits an Int64
    /// and means one post).
    public static func postID(_ value: String) throws(FieldError) -> Int64 {
        let digits = value.utf8
        guard (1...18).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }),
              let id = Int64(value), id > 0 else { throw .badPostID }
        return id
    }

    /// C0 controls and DEL. They are ASCII, and no byte of a multi-byte
    /// UTF-8 sequence is ASCII, so looking at the bytes is looking at the
    /// characters, at a fraction of the cost on a 64 KiB post.
    private static func isControl(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F
    }
}
