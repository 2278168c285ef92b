import Foundation

/// Finds a target's Webmention endpoint (W3C Webmention, 3.1.2): the first
/// HTTP `Link` header with `rel="webmention"`, else the first `<link>` or
/// `<a>` element with `rel="webmention"` in the HTML, its URL resolved
/// against the URL that answered (after redirects). An empty `href` is the
/// target itself; a query string is kept.
///
///     WebmentionDiscovery.endpoint(in: answer)   // "https://example.com/webmention?id=1"
public enum WebmentionDiscovery {
    /// The endpoint `answer` names, absolute and http(s); nil when it names none.
    public static func endpoint(in answer: HTTPAnswer) -> String? {
        if let header = answer.header("link"), let href = fromLinkHeader(header) {
            return resolved(href, against: answer.url)
        }
        let type = answer.header("content-type")?.lowercased() ?? "text/html"
        guard type.contains("html") else { return nil }
        guard let href = fromHTML(answer.body) else { return nil }
        return resolved(href, against: answer.url)
    }

    /// `href` against `base`; nil unless http(s).
    static func resolved(_ href: String, against base: String) -> String? {
        guard let baseURL = URL(string: base) else { return nil }
        let trimmed = href.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = trimmed.isEmpty ? baseURL : URL(string: trimmed, relativeTo: baseURL)?.absoluteURL,
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else { return nil }
        // An empty fragment-free reference keeps the base's query (RFC 3986).
        var absolute = url.absoluteString
        if let hash = absolute.firstIndex(of: "#") { absolute = String(absolute[..<hash]) }
        return absolute
    }

    // MARK: The Link header (RFC 8288)

    /// The first link in `header` whose `rel` holds `webmention`.
    static func fromLinkHeader(_ header: String) -> String? {
        let chars = Array(header.unicodeScalars)
        var index = 0
        while index < chars.count {
            // `<URI>`
            while index < chars.count, chars[index] != "<" { index += 1 }
            guard index < chars.count else { return nil }
            let start = index + 1
            while index < chars.count, chars[index] != ">" { index += 1 }
            guard index < chars.count else { return nil }
            let target = String(String.UnicodeScalarView(chars[start..<index]))
            index += 1
            // `; name=value` parameters up to the next `,` outside quotes.
            var rel: String?
            while index < chars.count, chars[index] != "," {
                if chars[index] == ";" {
                    index += 1
                    let (name, value, next) = parameter(chars, index)
                    if name.lowercased() == "rel", rel == nil { rel = value }
                    index = next
                } else {
                    index += 1
                }
            }
            if let rel, relHoldsWebmention(rel) { return target }
            index += 1
        }
        return nil
    }

    private static func parameter(_ chars: [Unicode.Scalar], _ start: Int) -> (String, String, Int) {
        var index = start
        var name = ""
        while index < chars.count, chars[index] != "=", chars[index] != ";", chars[index] != "," {
            name.unicodeScalars.append(chars[index])
            index += 1
        }
        name = name.trimmingCharacters(in: .whitespaces)
        guard index < chars.count, chars[index] == "=" else { return (name, "", index) }
        index += 1
        while index < chars.count, chars[index] == " " || chars[index] == "\t" { index += 1 }
        var value = ""
        if index < chars.count, chars[index] == "\"" {
            index += 1
            while index < chars.count, chars[index] != "\"" {
                if chars[index] == "\\", index + 1 < chars.count { index += 1 }
                value.unicodeScalars.append(chars[index])
                index += 1
            }
            index += 1
        } else {
            while index < chars.count, chars[index] != ";", chars[index] != "," {
                value.unicodeScalars.append(chars[index])
                index += 1
            }
        }
        return (name, value.trimmingCharacters(in: .whitespaces), index)
    }

    static func relHoldsWebmention(_ rel: String) -> Bool {
        rel.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            .contains("webmention")
    }

    // MARK: HTML

    /// The `href` of the first `<link>` or `<a>` whose `rel` holds
    /// `webmention` (one with no `href` is passed over), entities decoded.
    /// A small tag scanner: comments, and the insides of `script` and
    /// `style`, are skipped; anything it does not understand is text.
    static func fromHTML(_ body: [UInt8]) -> String? {
        var index = 0
        let count = body.count
        while index < count {
            guard body[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            if starts(body, index, "<!--") {
                index = find(body, "-->", from: index + 4).map { $0 + 3 } ?? count
                continue
            }
            var cursor = index + 1
            var name: [UInt8] = []
            while cursor < count, isNameByte(body[cursor]) {
                name.append(lowercase(body[cursor]))
                cursor += 1
            }
            guard !name.isEmpty else {
                index += 1
                continue
            }
            let (attributes, end) = attributesOf(body, from: cursor)
            index = end
            let tag = String(decoding: name, as: UTF8.self)
            if tag == "script" || tag == "style" {
                index = find(body, "</\(tag)", from: index, caseInsensitive: true) ?? count
                continue
            }
            guard tag == "a" || tag == "link", let rel = attributes["rel"], relHoldsWebmention(rel),
                  let href = attributes["href"] else { continue }
            return decodeEntities(href)
        }
        return nil
    }

    /// Attributes up to the tag's `>` (names lowercased, the first of a
    /// name kept), and the index just past it.
    private static func attributesOf(_ body: [UInt8], from start: Int) -> ([String: String], Int) {
        var attributes: [String: String] = [:]
        var index = start
        let count = body.count
        while index < count {
            while index < count, isSpace(body[index]) || body[index] == UInt8(ascii: "/") { index += 1 }
            guard index < count, body[index] != UInt8(ascii: ">") else { return (attributes, index + 1) }
            var name: [UInt8] = []
            while index < count, !isSpace(body[index]), body[index] != UInt8(ascii: "="),
                  body[index] != UInt8(ascii: ">"), body[index] != UInt8(ascii: "/") {
                name.append(lowercase(body[index]))
                index += 1
            }
            if name.isEmpty {
                index += 1
                continue
            }
            while index < count, isSpace(body[index]) { index += 1 }
            var value: [UInt8] = []
            if index < count, body[index] == UInt8(ascii: "=") {
                index += 1
                while index < count, isSpace(body[index]) { index += 1 }
                if index < count, body[index] == UInt8(ascii: "\"") || body[index] == UInt8(ascii: "'") {
                    let quote = body[index]
                    index += 1
                    while index < count, body[index] != quote {
                        value.append(body[index])
                        index += 1
                    }
                    index += 1
                } else {
                    while index < count, !isSpace(body[index]), body[index] != UInt8(ascii: ">") {
                        value.append(body[index])
                        index += 1
                    }
                }
            }
            let key = String(decoding: name, as: UTF8.self)
            if attributes[key] == nil { attributes[key] = String(decoding: value, as: UTF8.self) }
        }
        return (attributes, count)
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;` and numeric references.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            rest = rest[amp...]
            guard let semicolon = rest.prefix(12).firstIndex(of: ";") else {
                out += "&"
                rest = rest.dropFirst()
                continue
            }
            let name = rest[rest.index(after: rest.startIndex)..<semicolon]
            var replacement: String?
            switch name {
            case "amp": replacement = "&"
            case "lt": replacement = "<"
            case "gt": replacement = ">"
            case "quot": replacement = "\""
            case "apos": replacement = "'"
            default:
                if name.hasPrefix("#x") || name.hasPrefix("#X"), let code = UInt32(name.dropFirst(2), radix: 16) {
                    replacement = Unicode.Scalar(code).map(String.init)
                } else if name.hasPrefix("#"), let code = UInt32(name.dropFirst()) {
                    replacement = Unicode.Scalar(code).map(String.init)
                }
            }
            if let replacement {
                out += replacement
                rest = rest[rest.index(after: semicolon)...]
            } else {
                out += "&"
                rest = rest.dropFirst()
            }
        }
        return out + rest
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    private static func starts(_ body: [UInt8], _ index: Int, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return index + bytes.count <= body.count && Array(body[index..<index + bytes.count]) == bytes
    }

    private static func find(_ body: [UInt8], _ text: String, from start: Int, caseInsensitive: Bool = false) -> Int? {
        let needle = Array(text.utf8).map { caseInsensitive ? lowercase($0) : $0 }
        guard !needle.isEmpty, body.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= body.count {
            var matched = true
            for offset in 0..<needle.count {
                let byte = caseInsensitive ? lowercase(body[index + offset]) : body[index + offset]
                if byte != needle[offset] {
                    matched = false
                    break
                }
            }
            if matched { return index }
            index += 1
        }
        return nil
    }
}
