
/// HTML escaping of user text, byte by byte on its UTF-8.
///
/// Only ASCII bytes are ever replaced, and no byte of a multi-byte UTF-8
/// sequence is ASCII, so the output is valid UTF-8 whenever the input is.
public enum HTMLEscape {
    /// Appends `text`, escaped for element content and quoted attribute
    /// values (`& < > " '`).
    public static func append(_ text: some StringProtocol, to out: inout [UInt8]) {
        for byte in text.utf8 {
            if let entity = entity(byte) { out.append(contentsOf: entity) } else { out.append(byte) }
        }
    }

    /// Appends `text` escaped, each line break (LF, CRLF or CR) turned into
    /// `<br>`, so a post stays on one line of the page file.
    public static func appendMultiline(_ text: some StringProtocol, to out: inout [UInt8]) {
        var afterCR = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\r"):
                out.append(contentsOf: lineBreak)
                afterCR = true
                continue
            case UInt8(ascii: "\n"):
                if !afterCR { out.append(contentsOf: lineBreak) }
            default:
                if let entity = entity(byte) { out.append(contentsOf: entity) } else { out.append(byte) }
            }
            afterCR = false
        }
    }

    /// Bytes `appendMultiline` would append: what a post's text weighs on
    /// its page.
    static func multilineCount(_ text: some StringProtocol) -> Int {
        var count = 0
        var afterCR = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\r"):
                count += lineBreak.count
                afterCR = true
                continue
            case UInt8(ascii: "\n"):
                if !afterCR { count += lineBreak.count }
            default:
                count += entity(byte)?.count ?? 1
            }
            afterCR = false
        }
        return count
    }

    /// Escaped text as a String (for names in small places, and tests).
    static func escape(_ text: some StringProtocol) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always)
    private static func entity(_ byte: UInt8) -> [UInt8]? {
        switch byte {
        case UInt8(ascii: "&"): ampersand
        case UInt8(ascii: "<"): lessThan
        case UInt8(ascii: ">"): greaterThan
        case UInt8(ascii: "\""): quote
        case UInt8(ascii: "'"): apostrophe
        default: nil
        }
    }

    private static let ampersand = Array("&amp;".utf8)
    private static let lessThan = Array("&lt;".utf8)
    private static let greaterThan = Array("&gt;".utf8)
    private static let quote = Array("&quot;".utf8)
    private static let apostrophe = Array("&#39;".utf8)
    private static let lineBreak = Array("<br>".utf8)
}
