import BlogApp

/// The `multipart` target: a `multipart/form-data` body (the web
/// client's post form, a Micropub app's upload). The input's first line
/// is the Content-Type, the rest the body. What parses stays within the
/// limits and the input, reads the same when cut short, and encodes back
/// to a body that parses to the same parts.
func checkMultipart(_ data: [UInt8]) {
    let (contentType, body) = contentTypeAndBody(data)
    guard let form = try? MultipartForm(body: body, contentType: contentType) else {
        // The server read only the body's first bytes.
        if let short = try? MultipartForm(body: body, contentType: contentType, cutShort: true) { checkBounds(short, body) }
        return
    }
    checkBounds(form, body)
    let cut = Array(body.prefix(body.count / 2))
    if let short = try? MultipartForm(body: cut, contentType: contentType, cutShort: true) {
        precondition(short.parts.count <= form.parts.count && zip(short.parts, form.parts).allSatisfy(same),
                     "a body cut short read other parts")
    }
    let (encodedType, encoded) = encode(form.parts)
    guard let again = try? MultipartForm(body: encoded, contentType: encodedType) else {
        preconditionFailure("the parts encoded again do not parse")
    }
    precondition(again.parts.count == form.parts.count && zip(again.parts, form.parts).allSatisfy(same),
                 "the parts encoded again parse differently")
    _ = form.textFields
    _ = form.files("photo")
}

private func checkBounds(_ form: MultipartForm, _ body: [UInt8]) {
    precondition(form.parts.count <= MultipartForm.maxParts, "\(form.parts.count) parts")
    precondition(form.parts.reduce(0) { $0 + $1.body.count } <= body.count, "parts larger than the body")
}

private func same(_ a: MultipartForm.Part, _ b: MultipartForm.Part) -> Bool {
    a.name == b.name && a.filename == b.filename && a.contentType == b.contentType && a.body == b.body
}

/// The parts as a browser sends them, under a boundary none of them holds.
private func encode(_ parts: [MultipartForm.Part]) -> (String, [UInt8]) {
    var boundary = "blogfuzz"
    while parts.contains(where: { contains($0.body, Array("\r\n--\(boundary)".utf8)) }) { boundary += "x" }
    var body: [UInt8] = []
    for part in parts {
        var header = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
        if let filename = part.filename { header += "; filename=\"\(filename)\"" }
        if let type = part.contentType { header += "\r\nContent-Type: \(type)" }
        body += Array((header + "\r\n\r\n").utf8) + part.body + [0x0D, 0x0A]
    }
    body += Array("--\(boundary)--\r\n".utf8)
    return ("multipart/form-data; boundary=\(boundary)", body)
}
