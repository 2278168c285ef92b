/// A tolerant HTML reader for what Webmention verification needs: the
/// elements with their attributes and text, as a tree. Not a browser's
/// parser: unclosed elements close with their parent, stray end tags are
/// dropped, `script` and `style` are skipped, comments ignored. Bounded:
/// nesting past `maxDepth` is flattened, and past `maxNodes` the rest of
/// the document is dropped, so a hostile page costs linear time at most.
struct HTMLTree {
    final class Element {
        let name: String
        let attributes: [String: String]
        var children: [Node] = []

        init(name: String, attributes: [String: String]) {
            self.name = name
            self.attributes = attributes
        }

        /// The class names.
        var classes: [Substring] { (attributes["class"] ?? "").split(whereSeparator: \.isWhitespace) }

        /// Every element below, depth first, in document order.
        func descendants(_ visit: (Element) -> Bool) {
            for child in children {
                if case .element(let element) = child {
                    if visit(element) { element.descendants(visit) }
                }
            }
        }

        /// The text inside, white space collapsed, `br` and block ends as
        /// line breaks.
        var text: String {
            var out = ""
            appendText(to: &out)
            return HTMLTree.collapse(out)
        }

        private func appendText(to out: inout String) {
            for child in children {
                switch child {
                case .text(let text): out += text
                case .element(let element):
                    if element.name == "br" { out += "\n"; continue }
                    element.appendText(to: &out)
                    if HTMLTree.blocks.contains(element.name) { out += "\n" }
                }
            }
        }
    }

    enum Node {
        case element(Element)
        case text(String)
    }

    let root = Element(name: "#document", attributes: [:])

    static let maxDepth = 256
    static let maxNodes = 200_000
    static let void: Set<String> = ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                                    "source", "track", "wbr"]
    static let raw: Set<String> = ["script", "style", "template", "textarea", "title"]
    static let blocks: Set<String> = ["p", "div", "li", "blockquote", "pre", "h1", "h2", "h3", "h4", "h5", "h6",
                                      "section", "article", "ul", "ol", "tr"]

    init(_ html: String) {
        let bytes = Array(html.utf8)
        var stack: [Element] = [root]
        var nodes = 0
        var index = 0
        var textStart = 0

        func flushText(upTo end: Int) {
            guard end > textStart else { return }
            let text = HTMLTree.decode(String(decoding: bytes[textStart..<end], as: UTF8.self))
            stack[stack.count - 1].children.append(.text(text))
            nodes += 1
        }

        while index < bytes.count, nodes < Self.maxNodes {
            guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if next == UInt8(ascii: "!") || next == UInt8(ascii: "?") {
                flushText(upTo: index)
                let isComment = bytes[index...].starts(with: Array("<!--".utf8))
                let close = isComment ? Self.find(Array("-->".utf8), in: bytes, from: index + 4).map { $0 + 3 }
                                      : Self.find([UInt8(ascii: ">")], in: bytes, from: index).map { $0 + 1 }
                index = close ?? bytes.count
                textStart = index
                continue
            }
            let isEnd = next == UInt8(ascii: "/")
            let nameStart = index + (isEnd ? 2 : 1)
            guard nameStart < bytes.count, Self.isLetter(bytes[nameStart]) else { index += 1; continue }
            flushText(upTo: index)
            guard let (tag, after) = Self.readTag(bytes, from: nameStart) else {
                index = bytes.count
                textStart = index
                break
            }
            index = after
            textStart = index
            if isEnd {
                if let open = stack.lastIndex(where: { $0.name == tag.name }), open > 0 {
                    stack.removeSubrange(open...)
                }
                continue
            }
            let element = Element(name: tag.name, attributes: tag.attributes)
            stack[stack.count - 1].children.append(.element(element))
            nodes += 1
            if Self.raw.contains(tag.name) {
                // Its text up to its end tag; kept only for title and textarea.
                let endTag = Array("</\(tag.name)".utf8)
                let end = Self.findCaseless(endTag, in: bytes, from: index) ?? bytes.count
                if tag.name == "title" || tag.name == "textarea" {
                    element.children.append(.text(Self.decode(String(decoding: bytes[index..<end], as: UTF8.self))))
                }
                index = Self.find([UInt8(ascii: ">")], in: bytes, from: end).map { $0 + 1 } ?? bytes.count
                textStart = index
                continue
            }
            if !Self.void.contains(tag.name) && !tag.selfClosing && stack.count < Self.maxDepth {
                stack.append(element)
            }
        }
        if nodes < Self.maxNodes { flushText(upTo: bytes.count) }
    }

    /// Every element, depth first.
    func elements(_ visit: (Element) -> Bool) { root.descendants(visit) }

    // MARK: - Tags

    private static func readTag(_ bytes: [UInt8], from start: Int) -> ((name: String, attributes: [String: String], selfClosing: Bool), Int)? {
        var index = start
        while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "/") {
            index += 1
        }
        let name = String(decoding: bytes[start..<index], as: UTF8.self).lowercased()
        var attributes: [String: String] = [:]
        var selfClosing = false
        while index < bytes.count {
            let byte = bytes[index]
            if isSpace(byte) { index += 1; continue }
            if byte == UInt8(ascii: ">") { return ((name, attributes, selfClosing), index + 1) }
            if byte == UInt8(ascii: "/") { selfClosing = true; index += 1; continue }
            selfClosing = false
            let keyStart = index
            while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: "="),
                  bytes[index] != UInt8(ascii: ">"), !(bytes[index] == UInt8(ascii: "/") && index > keyStart) {
                index += 1
            }
            let key = String(decoding: bytes[keyStart..<index], as: UTF8.self).lowercased()
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            var value = ""
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                while index < bytes.count, isSpace(bytes[index]) { index += 1 }
                guard index < bytes.count else { return nil }
                let quote = bytes[index]
                if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                    let end = find([quote], in: bytes, from: index + 1) ?? bytes.count
                    value = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                    index = min(bytes.count, end + 1)
                } else {
                    let valueStart = index
                    while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
                    value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                }
            }
            if !key.isEmpty, attributes[key] == nil { attributes[key] = decode(value) }
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start < bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0] && bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func findCaseless(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if zip(bytes[index..<(index + needle.count)], needle).allSatisfy({ ($0 | 0x20) == ($1 | 0x20) }) { return index }
            index += 1
        }
        return nil
    }

    // MARK: - Text

    /// Character references: the named ones that matter, and numeric ones.
    static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[amp...].dropFirst()
            if let semi = after.prefix(12).firstIndex(of: ";") {
                let name = after[..<semi]
                if let scalar = entity(name) {
                    out.unicodeScalars.append(scalar)
                    rest = after[after.index(after: semi)...]
                    continue
                }
            }
            out += "&"
            rest = after
        }
        return out + rest
    }

    private static func entity(_ name: Substring) -> Unicode.Scalar? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return "\u{A0}"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            return value.flatMap { $0 == 0 ? nil : Unicode.Scalar($0) }
        }
    }

    /// Runs of white space become one space; line breaks are kept (one
    /// at most in a row), and the ends trimmed.
    static func collapse(_ text: String) -> String {
        var out = ""
        var space = false
        var lineBreak = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                lineBreak = true
            } else if scalar.properties.isWhitespace {
                space = true
            } else {
                if !out.isEmpty {
                    if lineBreak { out += "\n" } else if space { out += " " }
                }
                space = false
                lineBreak = false
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
