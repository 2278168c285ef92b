/// A JSON value with its object keys in the order they were given: the
/// documents a fediverse server reads (`ActorDocument`, `NoteDocument`,
/// WebFinger, NodeInfo) are built as values and written as bytes here,
/// the same bytes for the same value, `@context` first as people expect
/// to read it.
///
/// Strings are escaped as RFC 8259 requires (`"`, `\`, control
/// characters), plus `<`, `>` and `&` as `\u003c` and so on, so that no
/// document pasted into an HTML page can close a `<script>`; every other
/// character goes as UTF-8.
///
///     let doc: ActivityJSON = .object([("type", "Note"), ("sensitive", false)])
///     String(decoding: doc.bytes, as: UTF8.self)   // {"type":"Note","sensitive":false}
public indirect enum ActivityJSON: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral {
    case string(String)
    case int(Int)
    /// A number as decimal text, written as it is: it must be a JSON
    /// number (`Place`'s coordinates are: no exponent, no `+`).
    case decimal(String)
    case bool(Bool)
    case null
    case array([ActivityJSON])
    case object([(String, ActivityJSON)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }

    public static func == (lhs: ActivityJSON, rhs: ActivityJSON) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.decimal(let a), .decimal(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The value of `key` in an object; nil for a missing key or another kind.
    public subscript(key: String) -> ActivityJSON? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.0 == key }?.1
    }

    /// The text of a string value.
    public var string: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The document as UTF-8 bytes, without white space.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    /// Appends the document's bytes to `out`.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .string(let text): Self.writeString(text, to: &out)
        case .int(let value): out += Array(String(value).utf8)
        case .decimal(let text): out += Array(text.utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .null: out += Array("null".utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (index, field) in fields.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(field.0, to: &out)
                out.append(UInt8(ascii: ":"))
                field.1.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20, 0x7F, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"):
                out += Array("\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
