import Foundation

/// The parts of RFC 8941 (Structured Field Values) that RFC 9421 message
/// signatures use: a Dictionary whose members are Items or Inner Lists,
/// with Parameters; bare items Integer, String, Token, Byte Sequence and
/// Boolean (no Decimal). Parsing is strict and bounded by its input: a
/// field over `maxLength` bytes is refused before it is read.
///
///     let members = try StructuredFields.dictionary(#"sig1=("@method" "@path");created=1618884473;keyid="k""#)
///     members[0].key   // "sig1"
public enum StructuredFields {
    /// A bare item.
    public enum Bare: Sendable, Equatable {
        case integer(Int)
        case string(String)
        case token(String)
        case bytes([UInt8])
        case bool(Bool)
    }

    public struct Item: Sendable, Equatable {
        public var value: Bare
        public var parameters: [Parameter]

        public init(value: Bare, parameters: [Parameter]) {
            self.value = value
            self.parameters = parameters
        }
    }

    public struct Parameter: Sendable, Equatable {
        public var key: String
        public var value: Bare

        public init(key: String, value: Bare) {
            self.key = key
            self.value = value
        }
    }

    public enum Member: Sendable, Equatable {
        case item(Item)
        case innerList([Item], parameters: [Parameter])
    }

    public struct Entry: Sendable, Equatable {
        public var key: String
        public var member: Member
    }

    /// Longer fields are refused unread.
    public static let maxLength = 8 * 1024
    /// Members of a dictionary, items of an inner list, parameters of one
    /// item: past these a field is refused, so that no field of 8 KiB of
    /// one-byte members makes the duplicate checks quadratic.
    public static let maxMembers = 64
    public static let maxParameters = 32

    /// A Dictionary field's members, in order. A key given twice keeps
    /// its last value, as RFC 8941 says, in the first one's place.
    public static func dictionary(_ text: String) throws(SignatureError) -> [Entry] {
        guard text.utf8.count <= maxLength else { throw .headerTooLong(text.utf8.count) }
        var parser = Parser(bytes: Array(text.utf8))
        return try parser.dictionary()
    }

    /// An Inner List with its parameters as RFC 8941 serializes it:
    /// `("@method" "@path");created=1;keyid="k"`.
    public static func serialize(innerList items: [Item], parameters: [Parameter]) -> String {
        "(" + items.map(serialize(item:)).joined(separator: " ") + ")" + serialize(parameters: parameters)
    }

    static func serialize(item: Item) -> String {
        serialize(bare: item.value) + serialize(parameters: item.parameters)
    }

    static func serialize(parameters: [Parameter]) -> String {
        parameters.map { parameter in
            parameter.value == .bool(true) ? ";" + parameter.key : ";" + parameter.key + "=" + serialize(bare: parameter.value)
        }.joined()
    }

    static func serialize(bare: Bare) -> String {
        switch bare {
        case .integer(let value): String(value)
        case .string(let text): "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .token(let text): text
        case .bytes(let bytes): ":" + Data(bytes).base64EncodedString() + ":"
        case .bool(let value): value ? "?1" : "?0"
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skip(_ set: (UInt8) -> Bool) {
            while let byte = current, set(byte) { index += 1 }
        }

        static func isOWS(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

        mutating func dictionary() throws(SignatureError) -> [Entry] {
            var entries: [Entry] = []
            skip { $0 == 0x20 }
            while current != nil {
                let key = try self.key()
                let member: Member
                if current == UInt8(ascii: "=") {
                    index += 1
                    member = try itemOrInnerList()
                } else {
                    member = .item(Item(value: .bool(true), parameters: try parameters()))
                }
                if let found = entries.firstIndex(where: { $0.key == key }) {
                    entries[found].member = member
                } else {
                    guard entries.count < StructuredFields.maxMembers else {
                        throw .malformed("more than \(StructuredFields.maxMembers) members")
                    }
                    entries.append(Entry(key: key, member: member))
                }
                skip(Self.isOWS)
                guard current != nil else { break }
                guard current == UInt8(ascii: ",") else { throw .malformed("expected a comma at byte \(index)") }
                index += 1
                skip(Self.isOWS)
                guard current != nil else { throw .malformed("a trailing comma") }
            }
            return entries
        }

        mutating func itemOrInnerList() throws(SignatureError) -> Member {
            guard current == UInt8(ascii: "(") else {
                return .item(try item())
            }
            index += 1
            var items: [Item] = []
            while true {
                skip { $0 == 0x20 }
                guard let byte = current else { throw .malformed("an inner list is not closed") }
                if byte == UInt8(ascii: ")") {
                    index += 1
                    return .innerList(items, parameters: try parameters())
                }
                guard items.count < StructuredFields.maxMembers else {
                    throw .malformed("more than \(StructuredFields.maxMembers) items in an inner list")
                }
                items.append(try item())
                guard let next = current, next == 0x20 || next == UInt8(ascii: ")") else {
                    throw .malformed("expected a space or ) at byte \(index)")
                }
            }
        }

        mutating func item() throws(SignatureError) -> Item {
            let value = try bare()
            return Item(value: value, parameters: try parameters())
        }

        mutating func parameters() throws(SignatureError) -> [Parameter] {
            var found: [Parameter] = []
            while current == UInt8(ascii: ";") {
                index += 1
                skip { $0 == 0x20 }
                let key = try self.key()
                var value = Bare.bool(true)
                if current == UInt8(ascii: "=") {
                    index += 1
                    value = try bare()
                }
                if let at = found.firstIndex(where: { $0.key == key }) {
                    found[at].value = value
                } else {
                    guard found.count < StructuredFields.maxParameters else {
                        throw .malformed("more than \(StructuredFields.maxParameters) parameters")
                    }
                    found.append(Parameter(key: key, value: value))
                }
            }
            return found
        }

        /// `lcalpha / "*"`, then `lcalpha / DIGIT / "_" / "-" / "." / "*"`.
        mutating func key() throws(SignatureError) -> String {
            guard let first = current, (0x61...0x7A).contains(first) || first == UInt8(ascii: "*") else {
                throw .malformed("a key must start with a lowercase letter at byte \(index)")
            }
            let start = index
            skip { byte in
                (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || "_-.*".utf8.contains(byte)
            }
            guard index - start <= 64 else { throw .malformed("a key is over 64 bytes") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func bare() throws(SignatureError) -> Bare {
            guard let byte = current else { throw .malformed("a value is missing at the end") }
            switch byte {
            case UInt8(ascii: "-"), 0x30...0x39: return try integer()
            case UInt8(ascii: "\""): return try string()
            case UInt8(ascii: ":"): return try byteSequence()
            case UInt8(ascii: "?"): return try boolean()
            case UInt8(ascii: "*"), 0x41...0x5A, 0x61...0x7A: return token()
            default: throw .malformed("an unexpected byte at \(index)")
            }
        }

        mutating func integer() throws(SignatureError) -> Bare {
            let start = index
            if current == UInt8(ascii: "-") { index += 1 }
            let digits = index
            skip { (0x30...0x39).contains($0) }
            let count = index - digits
            guard count >= 1, count <= 15 else { throw .malformed("an integer of \(count) digits") }
            guard current != UInt8(ascii: ".") else { throw .malformed("decimals are not taken") }
            return .integer(Int(String(decoding: bytes[start..<index], as: UTF8.self))!)
        }

        mutating func string() throws(SignatureError) -> Bare {
            index += 1
            var value: [UInt8] = []
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return .string(String(decoding: value, as: UTF8.self))
                case UInt8(ascii: "\\"):
                    guard let next = current, next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") else {
                        throw .malformed("a bad escape in a string")
                    }
                    value.append(next)
                    index += 1
                case 0x20...0x7E:
                    value.append(byte)
                default:
                    throw .malformed("a string holds a byte that is not printable ASCII")
                }
            }
            throw .malformed("a string is not closed")
        }

        mutating func byteSequence() throws(SignatureError) -> Bare {
            index += 1
            let start = index
            skip { byte in
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
            }
            guard current == UInt8(ascii: ":") else { throw .malformed("a byte sequence is not closed") }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            index += 1
            guard let data = Data(base64Encoded: text) else { throw .malformed("a byte sequence is not base64") }
            return .bytes(Array(data))
        }

        mutating func boolean() throws(SignatureError) -> Bare {
            index += 1
            guard let byte = current, byte == UInt8(ascii: "0") || byte == UInt8(ascii: "1") else {
                throw .malformed("a boolean is neither ?0 nor ?1")
            }
            index += 1
            return .bool(byte == UInt8(ascii: "1"))
        }

        mutating func token() -> Bare {
            let start = index
            index += 1
            skip { ParameterList.isTokenByte($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/") }
            return .token(String(decoding: bytes[start..<index], as: UTF8.self))
        }
    }
}
