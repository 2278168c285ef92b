/// The rules of PROTOCOL.md for the fields other than the username.
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
        guard !value.unicodeScalars.contains(where: isControl) else { throw .controlCharacters }
        return value
    }

    /// CONTENT: may be empty; tabs and line breaks are kept, other control
    /// characters (NUL, escape sequences) are refused rather than stored.
    public static func content(_ value: String) throws(FieldError) -> String {
        let allowed: Set<Unicode.Scalar> = ["\t", "\n", "\r"]
        guard !value.unicodeScalars.contains(where: { isControl($0) && !allowed.contains($0) }) else {
            throw .controlCharacters
        }
        return value
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }
}
