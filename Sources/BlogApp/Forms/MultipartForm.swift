/// The parts of a `multipart/form-data` body (RFC 7578): a form with a
/// file, from the web client's post form or a Micropub app.
///
///     let form = try MultipartForm(body: bytes, contentType: "multipart/form-data; boundary=x")
///     form.field("title")            // "Hello"
///     form.files("photo").first      // the uploaded bytes, its name and type
///
/// Bounded against hostile bodies: at most `maxParts` parts, and a part's
/// headers within `maxHeaderBytes`; anything malformed is refused whole.
public struct MultipartForm: Sendable {
    public struct Part: Sendable {
        public var name: String
        /// Set for a file.
        public var filename: String?
        public var contentType: String?
        public var body: [UInt8]
    }

    public enum Failure: Error, Equatable {
        case noBoundary
        case malformed
        case tooManyParts
    }

    public private(set) var parts: [Part] = []

    public static let maxParts = 32
    public static let maxHeaderBytes = 8 * 1024

    /// With `cutShort`, the body is known to end early (the server kept
    /// only its first bytes): the parts whole before the cut are read,
    /// the one it cuts is left out.
    public init(body: [UInt8], contentType: String, cutShort: Bool = false) throws(Failure) {
        guard let boundary = Self.boundary(of: contentType) else { throw .noBoundary }
        let delimiter = Array("--\(boundary)".utf8)
        // The first delimiter may come without the CRLF before it.
        guard var start = Self.find(delimiter, in: body, from: 0) else { throw .malformed }
        start += delimiter.count
        let next = Array("\r\n--\(boundary)".utf8)
        while true {
            // "--" after a delimiter ends the body.
            if body.count >= start + 2, body[start] == UInt8(ascii: "-"), body[start + 1] == UInt8(ascii: "-") { return }
            if cutShort, body.count < start + 2 { return }
            guard body.count >= start + 2, body[start] == 0x0D, body[start + 1] == 0x0A else { throw .malformed }
            start += 2
            guard let end = Self.find(next, in: body, from: start) else {
                if cutShort { return }
                throw .malformed
            }
            guard parts.count < Self.maxParts else { throw .tooManyParts }
            parts.append(try Self.part(body[start..<end]))
            start = end + next.count
        }
    }

    /// The first text field of that name.
    public func field(_ name: String) -> String? {
        parts.first { $0.name == name && $0.filename == nil }.flatMap { String(validating: $0.body, as: UTF8.self) }
    }

    /// Every text field of that name (`name` or `name[]`), in order.
    public func fields(_ name: String) -> [String] {
        parts.filter { ($0.name == name || $0.name == name + "[]") && $0.filename == nil }
            .compactMap { String(validating: $0.body, as: UTF8.self) }
    }

    /// The files sent under that name (`name` or `name[]`), empty ones left out.
    public func files(_ name: String) -> [Part] {
        parts.filter { ($0.name == name || $0.name == name + "[]") && $0.filename != nil && !$0.body.isEmpty }
    }

    /// The text fields, as a form-encoded body reads them.
    public var textFields: [(name: String, value: String)] {
        parts.compactMap { part in
            guard part.filename == nil, let value = String(validating: part.body, as: UTF8.self) else { return nil }
            return (part.name, value)
        }
    }

    static func boundary(of contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            var value = String(piece.dropFirst(9))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            // RFC 2046: 1 to 70 characters.
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    private static func part(_ bytes: ArraySlice<UInt8>) throws(Failure) -> Part {
        let separator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        guard let headerEnd = find(separator, in: bytes, from: bytes.startIndex),
              headerEnd - bytes.startIndex <= maxHeaderBytes,
              let headerText = String(validating: bytes[bytes.startIndex..<headerEnd], as: UTF8.self)
        else { throw .malformed }
        var name: String?
        var filename: String?
        var type: String?
        for line in headerText.split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else { throw .malformed }
            let value = pair[1].trimmingCharacters(in: .whitespaces)
            switch pair[0].lowercased() {
            case "content-disposition":
                name = parameter("name", in: value)
                filename = parameter("filename", in: value)
            case "content-type":
                type = value
            default: break
            }
        }
        guard let name else { throw .malformed }
        return Part(name: name, filename: filename, contentType: type, body: Array(bytes[(headerEnd + 4)...]))
    }

    /// `name="value"` (or unquoted) in a header's parameters.
    static func parameter(_ key: String, in header: String) -> String? {
        for piece in header.split(separator: ";").dropFirst() {
            let trimmed = piece.trimmingCharacters(in: .whitespaces)
            guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals].lowercased() == key else { continue }
            var value = String(trimmed[trimmed.index(after: equals)...])
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    /// Where `needle` first occurs in `haystack` at or after `from`.
    static func find<Bytes: RandomAccessCollection<UInt8>>(_ needle: [UInt8], in haystack: Bytes, from: Int) -> Int?
    where Bytes.Index == Int {
        guard !needle.isEmpty, haystack.endIndex - from >= needle.count else { return nil }
        let first = needle[0]
        var index = from
        let last = haystack.endIndex - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
