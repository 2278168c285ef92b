/// The hashtag rule, defined once: which `#words` in a post's text are its
/// tags. Storage derives a post's tags from its text with it (whatever
/// door the post came through: the 2009 protocol, the web client,
/// Micropub), and the pages link the same words (`LinkedText`).
///
/// A hashtag is `#` at the start of a word (at the start of the text,
/// after white space, or after one of `( [ { " '` that itself starts a
/// word), then 1 to `maxLength` letters, digits, `_` or `-` holding at
/// least one letter; a trailing `-` or `_` is not part of it. So it is
/// never inside a URL (a URL's `#fragment` follows a URL byte, and a word
/// ending in `://` is a URL's scheme, not a tag), `#1` is a number, and
/// `&#39;` an entity. A tag is the word in lower case; a post keeps its
/// first `maxPerPost` distinct tags, the text's first, then those given
/// beside it (`PostRecord.categories`).
///
///     Hashtags.tags(in: "Hello #Swift and #swift, #1, https://x.org/#top")  // ["swift"]
public enum Hashtags {
    /// The most characters in a tag; a longer word is no tag at all.
    public static let maxLength = 64
    /// The most tags one post keeps.
    public static let maxPerPost = 20

    /// The tags of `text`, in order, each once, at most `maxPerPost`.
    public static func tags(in text: some StringProtocol) -> [String] {
        let bytes = Array(text.utf8)
        return distinct(ranges(in: bytes).map { tag(bytes[$0]) })
    }

    /// A post's tags: its text's, then `categories`, each once, at most
    /// `maxPerPost`.
    public static func tags(content: String, categories: [String]) -> [String] {
        guard !categories.isEmpty else { return tags(in: content) }
        return distinct(tags(in: content) + categories)
    }

    /// The byte ranges of the hashtags' words in `bytes` (after the `#`),
    /// in order; nothing without a `#` costs more than one scan.
    public static func ranges(in bytes: [UInt8]) -> [Range<Int>] {
        guard bytes.contains(UInt8(ascii: "#")) else { return [] }
        var found: [Range<Int>] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "#"), startsWord(bytes, at: index) else {
                index += 1
                continue
            }
            let start = index + 1
            var end = start, letters = false, characters = 0
            while end < bytes.count, let scalar = wordScalar(bytes, at: end) {
                letters = letters || scalar.isLetter
                end += scalar.length
                characters += 1
            }
            var last = end
            while last > start, bytes[last - 1] == UInt8(ascii: "-") || bytes[last - 1] == UInt8(ascii: "_") {
                last -= 1
                characters -= 1
            }
            let scheme = end + 2 < bytes.count && bytes[end] == UInt8(ascii: ":")
                && bytes[end + 1] == UInt8(ascii: "/") && bytes[end + 2] == UInt8(ascii: "/")
            if last > start, letters, characters <= maxLength, !scheme {
                found.append(start ..< last)
            }
            index = max(end, index + 1)
        }
        return found
    }

    /// A tag given beside the text (a Micropub `category`, the web form's
    /// tags field) as stored: without a leading `#`, in lower case; nil
    /// when it is not a whole tag word by the rule above.
    public static func normalized(_ value: String) -> String? {
        let word = value.hasPrefix("#") ? String(value.dropFirst()) : value
        let bytes = Array(word.utf8)
        guard !bytes.isEmpty else { return nil }
        var index = 0, letters = false, characters = 0
        while index < bytes.count {
            guard let scalar = wordScalar(bytes, at: index) else { return nil }
            letters = letters || scalar.isLetter
            index += scalar.length
            characters += 1
        }
        let edge: Set<UInt8> = [UInt8(ascii: "-"), UInt8(ascii: "_")]
        guard letters, characters <= maxLength, !edge.contains(bytes[bytes.count - 1]) else { return nil }
        return word.lowercased()
    }

    /// Tags separated by white space or commas (the web form's field),
    /// each normalized; the words that are not tags are returned apart.
    public static func parseList(_ text: String) -> (tags: [String], rejected: [String]) {
        var tags: [String] = [], rejected: [String] = []
        for word in text.split(whereSeparator: { $0 == "," || $0.isWhitespace }) {
            if let tag = normalized(String(word)) { tags.append(tag) } else { rejected.append(String(word)) }
        }
        return (distinct(tags, limit: Int.max), rejected)
    }

    /// A tag as stored (`normalized`) and as a URL path segment: its
    /// UTF-8 bytes outside ASCII percent-encoded (the rest of a tag's
    /// bytes need no escaping).
    public static func pathSegment(_ tag: String) -> String {
        var out = ""
        for byte in tag.utf8 {
            if byte < 0x80 {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }

    private static func tag(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self).lowercased()
    }

    private static func distinct(_ tags: [String], limit: Int = maxPerPost) -> [String] {
        var seen: Set<String> = [], out: [String] = []
        for tag in tags where seen.insert(tag).inserted {
            out.append(tag)
            if out.count == limit { break }
        }
        return out
    }

    /// Whether the `#` at `index` starts a word: at the start, after white
    /// space, or after an opening bracket or quote that starts one.
    private static func startsWord(_ bytes: [UInt8], at index: Int) -> Bool {
        guard index > 0 else { return true }
        let before = bytes[index - 1]
        if isSpace(before) { return true }
        guard openers.contains(before) else { return false }
        return index == 1 || isSpace(bytes[index - 2])
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// The length in bytes of the scalar at `index` and whether it is a
    /// letter, when it may be part of a tag (a letter, a digit, `_`, `-`);
    /// nil otherwise.
    private static func wordScalar(_ bytes: [UInt8], at index: Int) -> (length: Int, isLetter: Bool)? {
        let byte = bytes[index]
        if byte < 0x80 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): return (1, true)
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): return (1, false)
            default: return nil
            }
        }
        let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 0
        guard length > 0, index + length <= bytes.count else { return nil }
        var value = UInt32(byte) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for next in bytes[index + 1 ..< index + length] {
            guard next & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(next & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value) else { return nil }
        let properties = scalar.properties
        if properties.isAlphabetic { return (length, true) }
        if properties.numericType == .decimal { return (length, false) }
        return nil
    }

    private static let openers: Set<UInt8> = Set("([{\"'".utf8)
}
