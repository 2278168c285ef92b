/// The fields of an `application/x-www-form-urlencoded` body or a query
/// string, decoded (`+` is a space, `%XX` a byte), as the WHATWG URL
/// standard reads them.
///
///     let form = FormData(bytes: Array("title=Hello+there&tags=a&tags=b".utf8))
///     form["title"]          // "Hello there"
///     form.all("tags")       // ["a", "b"]
///
/// A field whose bytes are not UTF-8 after decoding, or a field past the
/// `maxFields`th, makes the form refused as a whole (`isRefused`) rather
/// than half-read: a 1 MiB body of `&`s would otherwise be 500,000 fields,
/// each looked through by every lookup.
public struct FormData: Sendable, Equatable {
    /// Name and value pairs, in the order sent.
    public private(set) var fields: [(name: String, value: String)]
    /// Some name or value was not UTF-8, or there were more than
    /// `maxFields` fields.
    public private(set) var isRefused = false

    /// Fields a form may have: far more than any form or Micropub request
    /// of blogd's sends (a post with every category and photo is dozens).
    public static let maxFields = 1000

    public init(bytes: some Collection<UInt8>) {
        fields = []
        // Pair by pair, so that a flood of `&`s costs no array of them.
        var start = bytes.startIndex
        while start != bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            defer { start = end == bytes.endIndex ? end : bytes.index(after: end) }
            let pair = bytes[start..<end]
            guard !pair.isEmpty else { continue }
            guard fields.count < Self.maxFields else {
                isRefused = true
                return
            }
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let name = Self.decode(pair[..<(equals ?? pair.endIndex)])
            let value = equals.map { Self.decode(pair[pair.index(after: $0)...]) } ?? ""
            guard let name, let value else {
                isRefused = true
                continue
            }
            fields.append((name, value))
        }
    }

    /// Fields already decoded (a multipart form's text parts).
    public init(fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    public init(query: String) {
        self.init(bytes: Array(query.utf8))
    }

    /// The first value of `name`.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order (`name` and `name[]` both count, as
    /// Micropub sends arrays).
    public func all(_ name: String) -> [String] {
        fields.filter { $0.name == name || $0.name == name + "[]" }.map(\.value)
    }

    public static func == (a: FormData, b: FormData) -> Bool {
        a.isRefused == b.isRefused && a.fields.elementsEqual(b.fields) { $0 == $1 }
    }

    /// Percent-decoding, `+` as space; nil when the result is not UTF-8.
    static func decode(_ bytes: some Collection<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            index = bytes.index(after: index)
            switch byte {
            case UInt8(ascii: "+"): out.append(0x20)
            case UInt8(ascii: "%"):
                // A `%` not followed by two hex digits stays as it is.
                guard index != bytes.endIndex, let high = hex(bytes[index]) else { out.append(byte); continue }
                let next = bytes.index(after: index)
                guard next != bytes.endIndex, let low = hex(bytes[next]) else { out.append(byte); continue }
                out.append(high << 4 | low)
                index = bytes.index(after: next)
            default: out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
