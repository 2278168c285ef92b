/// Whether `needle` occurs in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// An input that stands for a request with a body: its first line (up to
/// the first LF within 256 bytes) is the Content-Type, the rest the body;
/// without such a line, all of it is the body and the type is empty.
func contentTypeAndBody(_ data: [UInt8]) -> (String, [UInt8]) {
    guard let newline = data.prefix(256).firstIndex(of: UInt8(ascii: "\n")) else { return ("", data) }
    return (String(decoding: data[..<newline], as: UTF8.self), Array(data[(newline + 1)...]))
}
