import BlogApp

/// The `micropub` target: a Micropub POST body, JSON or form-encoded. The
/// input's first line is the Content-Type, the rest the body. Parsing
/// never crashes, and no text it reads is longer than the body, but for a
/// coordinate sent as a number and written out in decimals.
func checkMicropub(_ data: [UInt8]) {
    let (contentType, body) = contentTypeAndBody(data)
    guard let texts = MicropubParser.texts(ofBody: body, contentType: contentType.isEmpty ? nil : contentType) else { return }
    for text in texts where text.utf8.count > body.count {
        precondition(Double(text) != nil, "a text of \(text.utf8.count) bytes from a body of \(body.count)")
    }
}
