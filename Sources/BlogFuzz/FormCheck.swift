import BlogApp

/// The `form` target: an `application/x-www-form-urlencoded` body or a
/// query string. No more fields than pairs, none longer than the input,
/// and the fields encoded again decode to themselves.
func checkForm(_ data: [UInt8]) {
    let form = FormData(bytes: data)
    let pairs = data.split(separator: UInt8(ascii: "&")).count
    precondition(form.fields.count <= pairs, "\(form.fields.count) fields from \(pairs) pairs")
    precondition(form.isRefused == (form.fields.count < pairs), "a pair neither read nor refused")
    for field in form.fields {
        precondition(field.name.utf8.count + field.value.utf8.count <= data.count, "a field longer than the input")
    }
    let encoded = form.fields.map { percentEncoded($0.name) + "=" + percentEncoded($0.value) }.joined(separator: "&")
    let again = FormData(bytes: Array(encoded.utf8))
    precondition(!again.isRefused && again.fields.elementsEqual(form.fields) { $0 == $1 }, "the fields encoded again read differently")
    if let text = String(validating: data, as: UTF8.self) {
        precondition(FormData(query: text) == form, "a query string reads other than its bytes")
    }
}

/// Every byte but letters and digits as `%XX`, a space as `+`.
private func percentEncoded(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            out.unicodeScalars.append(Unicode.Scalar(byte))
        case UInt8(ascii: " "): out += "+"
        default:
            let digits = Array("0123456789ABCDEF")
            out += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
        }
    }
    return out
}
