/// How deep a JSON text nests, found without parsing it: a hostile client
/// sends `[[[[...` a million deep to exhaust a recursive parser's stack.
enum JSONDepth {
    /// Whether `bytes` nests no deeper than `limit` arrays and objects.
    static func isWithin(_ limit: Int, _ bytes: [UInt8]) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return false }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return true
    }
}
