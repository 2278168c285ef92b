import BlogApp
import HTTPTypes

/// The `cookie` target: Cookie header fields, one per line of the input
/// (a client may send several). Every `name=value` pair is found under
/// its name, the first of a name winning, and no value comes from
/// anywhere but its field.
func checkCookies(_ data: [UInt8]) {
    var fields = HTTPFields()
    for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).prefix(8) {
        fields.append(HTTPField(name: .cookie, lenientValue: line))
    }
    let cookies = Cookies(fields)
    var expected: [String: String] = [:]
    let lines = fields[values: .cookie]
    for line in lines {
        for pair in line.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " }
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            let name = String(trimmed[..<equals])
            if expected[name] == nil { expected[name] = String(trimmed[trimmed.index(after: equals)...]) }
        }
    }
    for (name, value) in expected {
        precondition(cookies[name] == value, "cookie \(name) reads \(String(describing: cookies[name])), not \(value)")
        precondition(value.isEmpty || lines.contains { $0.contains(value) }, "a value from nowhere")
    }
}
