import BlogModel

/// A post's text as HTML: escaped, each line break a `<br>`, each
/// `http://` or `https://` URL in it a link, and each hashtag (`Hashtags`)
/// a link to its tag's page (`tags/NAME`, class `p-category`), on every
/// page and feed.
///
/// Nothing else of the text ever becomes markup: a URL ends at white
/// space, at `<`, `>`, `"` or a backtick, and at any byte outside ASCII,
/// and it is escaped twice over like the rest (in the `href` and as the
/// link's text), so no text can close the attribute or open a tag. No
/// other scheme is linked (`javascript:`, `data:`, `ftp:` stay text), nor
/// a scheme glued to a word (`xhttp://`). Punctuation that ends a sentence
/// (`.,;:!?*'`) is left out of a URL's end, and so is a closing `)` or `]`
/// without its opening one inside the URL, so that
/// `(see https://example.com/a_(b))` links `https://example.com/a_(b)`.
/// A hashtag's link keeps the words as written (escaped) and goes to the
/// tag in lower case, its bytes outside ASCII percent-encoded: a tag is
/// letters, digits, `_` and `-` only, so nothing of it is markup either.
///
///     var out: [UInt8] = []
///     LinkedText.append("Read https://example.com.", to: &out)
///     // Read <a href="https://example.com">https://example.com</a>.
public enum LinkedText {
    /// Appends `text` as HTML (see the type).
    /// `tagBase` goes before each tag page's address: "" on the pages
    /// (whose links are relative to the public folder's top), the site's
    /// URL in a feed.
    public static func append(_ text: some StringProtocol, tagBase: String = "", to out: inout [UInt8]) {
        render(Array(text.utf8), tagBase: tagBase) { out.append(contentsOf: $0) }
    }

    /// Bytes `append` would add: what a post's text weighs on its page.
    public static func count(_ text: some StringProtocol) -> Int {
        var count = 0
        render(Array(text.utf8)) { count += $0.count }
        return count
    }

    /// The URLs `append` links, in order (for tests, and for what will
    /// send Webmentions).
    public static func urls(in text: some StringProtocol) -> [String] {
        let bytes = Array(text.utf8)
        return links(in: bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    /// One pass for both `append` and `count`, so a post's weight is
    /// exactly the bytes its text takes.
    private static func render(_ bytes: [UInt8], tagBase: String = "", _ emit: (ArraySlice<UInt8>) -> Void) {
        var start = 0
        var tags = kept(Hashtags.ranges(in: bytes), bytes)[...]
        for link in links(in: bytes) {
            while let tag = tags.first, tag.upperBound <= link.lowerBound {
                start = hashtag(bytes, tag, after: start, tagBase: tagBase, emit)
                tags.removeFirst()
            }
            // The rule keeps them apart; were one to overlap, the URL wins.
            while let tag = tags.first, tag.lowerBound - 1 < link.upperBound { tags.removeFirst() }
            multiline(bytes[start ..< link.lowerBound], emit)
            emit(anchorStart[...])
            escaped(bytes[link], emit)
            emit(anchorMiddle[...])
            escaped(bytes[link], emit)
            emit(anchorEnd[...])
            start = link.upperBound
        }
        for tag in tags { start = hashtag(bytes, tag, after: start, tagBase: tagBase, emit) }
        multiline(bytes[start...], emit)
    }

    /// The text from `start` to the hashtag whose word is `word`, then
    /// its link; returns where the text goes on.
    private static func hashtag(_ bytes: [UInt8], _ word: Range<Int>, after start: Int, tagBase: String,
                                _ emit: (ArraySlice<UInt8>) -> Void) -> Int {
        multiline(bytes[start ..< word.lowerBound - 1], emit)
        var out = tagStart
        HTMLEscape.append(tagBase, to: &out)
        out += tagPath
        let tag = String(decoding: bytes[word], as: UTF8.self).lowercased()
        out += Array(Hashtags.pathSegment(tag).utf8)
        out += anchorMiddle
        out.append(UInt8(ascii: "#"))
        HTMLEscape.append(String(decoding: bytes[word], as: UTF8.self), to: &out)
        out += anchorEnd
        emit(out[...])
        return word.upperBound
    }

    /// `ranges` without the hashtags past a post's first
    /// `Hashtags.maxPerPost` tags: those are not its tags, so their words
    /// stay text rather than link to a page the post is not on.
    private static func kept(_ ranges: [Range<Int>], _ bytes: [UInt8]) -> [Range<Int>] {
        guard ranges.count > Hashtags.maxPerPost else { return ranges }
        let tags = Set(Hashtags.tags(in: String(decoding: bytes, as: UTF8.self)))
        return ranges.filter { tags.contains(String(decoding: bytes[$0], as: UTF8.self).lowercased()) }
    }

    /// The tags `append` links, in order, each as often as it appears.
    public static func hashtags(in text: some StringProtocol) -> [String] {
        let bytes = Array(text.utf8)
        return kept(Hashtags.ranges(in: bytes), bytes).map { String(decoding: bytes[$0], as: UTF8.self).lowercased() }
    }

    /// Escaped, line breaks as `<br>` (`HTMLEscape.appendMultiline`).
    private static func multiline(_ part: ArraySlice<UInt8>, _ emit: (ArraySlice<UInt8>) -> Void) {
        guard !part.isEmpty else { return }
        var out: [UInt8] = []
        out.reserveCapacity(part.count)
        HTMLEscape.appendMultiline(String(decoding: part, as: UTF8.self), to: &out)
        emit(out[...])
    }

    private static func escaped(_ part: ArraySlice<UInt8>, _ emit: (ArraySlice<UInt8>) -> Void) {
        var out: [UInt8] = []
        HTMLEscape.append(String(decoding: part, as: UTF8.self), to: &out)
        emit(out[...])
    }

    /// The byte ranges of the URLs in `bytes`.
    static func links(in bytes: [UInt8]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var index = 0
        while index < bytes.count {
            guard let schemeEnd = scheme(in: bytes, at: index) else {
                index += 1
                continue
            }
            var end = schemeEnd
            while end < bytes.count, isURLByte(bytes[end]) { end += 1 }
            end = trimmed(bytes, schemeEnd, end)
            // A host must follow the scheme: `http://` alone is text.
            if end > schemeEnd, isAlphanumeric(bytes[schemeEnd]) {
                found.append(index ..< end)
                index = end
            } else {
                index = schemeEnd
            }
        }
        return found
    }

    /// Where the URL's rest begins when `http://` or `https://` (any case)
    /// starts at `index` and no letter or digit is glued before it.
    private static func scheme(in bytes: [UInt8], at index: Int) -> Int? {
        guard bytes[index] | 0x20 == UInt8(ascii: "h") else { return nil }
        if index > 0, isAlphanumeric(bytes[index - 1]) { return nil }
        for prefix in schemes where bytes.count - index >= prefix.count {
            if zip(bytes[index ..< index + prefix.count], prefix).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) {
                return index + prefix.count
            }
        }
        return nil
    }

    /// `end` moved back past sentence punctuation and unmatched closers.
    /// The brackets are counted once, then kept as the end moves: a URL of
    /// 60,000 `)` costs one pass, not one pass for each.
    private static func trimmed(_ bytes: [UInt8], _ start: Int, _ end: Int) -> Int {
        var unmatched: [UInt8: Int] = [:]
        for byte in bytes[start ..< end] {
            if closers.contains(byte) { unmatched[byte, default: 0] += 1 }
            if let closer = openers[byte] { unmatched[closer, default: 0] -= 1 }
        }
        var end = end
        while end > start {
            let last = bytes[end - 1]
            if trailing.contains(last) {
                end -= 1
            } else if closers.contains(last), unmatched[last, default: 0] > 0 {
                unmatched[last, default: 0] -= 1
                end -= 1
            } else {
                break
            }
        }
        return end
    }

    private static func isURLByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && !stops.contains(byte)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }

    // `https://` first: `http` is its prefix, and both end in `://`.
    private static let schemes = [Array("https://".utf8), Array("http://".utf8)]
    private static let stops: Set<UInt8> = Set("<>\"`".utf8)
    private static let trailing: Set<UInt8> = Set(".,;:!?*'".utf8)
    private static let closers: Set<UInt8> = Set(")]".utf8)
    /// Each opening bracket, to the closing one it matches.
    private static let openers: [UInt8: UInt8] = [UInt8(ascii: "("): UInt8(ascii: ")"), UInt8(ascii: "["): UInt8(ascii: "]")]
    private static let anchorStart = Array("<a href=\"".utf8)
    private static let anchorMiddle = Array("\">".utf8)
    private static let anchorEnd = Array("</a>".utf8)
    private static let tagStart = Array("<a class=\"p-category\" href=\"".utf8)
    private static let tagPath = Array("tags/".utf8)
}
