import BlogModel
import BlogPages
import BlogWire
import Foundation

// The codec meets hostile bytes first on the blog port: framing with
// arbitrary chunking, request parsing, and the page a parsed post becomes.

/// The `codec` target.
func checkCodec(_ data: [UInt8]) {
    let limit = 512
    // The first byte picks the chunk size, so libFuzzer explores splits of
    // terminators and multi-byte characters across reads.
    let chunk = max(1, Int(data.first ?? 1) % 17)
    var decoder = FrameDecoder(maxMessageBytes: limit)
    var start = 0
    while start < data.count {
        let end = min(data.count, start + chunk)
        decoder.append(data[start..<end])
        start = end
        while let event = decoder.next() {
            switch event {
            case .message(let body):
                precondition(body.count <= limit, "a message over the limit got through")
                precondition(!contains(body, Frame.terminator), "a message kept a terminator")
                precondition(body.first.map { !Frame.isSkippableWhitespace($0) } ?? true, "leading whitespace kept")
                checkRequest(body)
            case .oversized:
                precondition(decoder.isOversized)
            }
        }
        precondition(decoder.pendingByteCount <= limit + Frame.terminator.count, "decoder grew past its bound")
    }
    checkRequest(data)
}

/// Parsing never crashes; what parses obeys the field rules, and a post
/// renders to exactly one escaped line of a valid UTF-8 page.
func checkRequest(_ body: [UInt8]) {
    guard let request = try? Request(message: body) else { return }
    let name = request.user.value
    precondition((1...Username.maxLength).contains(name.utf8.count))
    precondition(!name.contains("/") && !name.contains(".") && !name.contains("\0"), "unsafe name \(name)")
    switch request {
    case .register(_, let password), .login(_, let password):
        precondition((1...FieldRules.maxPasswordBytes).contains(password.utf8.count))
    case .listPosts, .deletePost(_, _):
        if case .deletePost(_, let id) = request { precondition(id > 0) }
    case .newPost(let user, let title, let content), .editPost(let user, _, let title, let content),
         .geoPost(let user, _, let title, let content):
        let post = PostRecord(id: 7, userID: 1, title: title.value, content: content.value, createdAt: Date(timeIntervalSince1970: 0))
        let line = PageRenderer.fragment(post, user: user.value)
        precondition(!line.contains(UInt8(ascii: "\n")) && !line.contains(UInt8(ascii: "\r")), "a post spans lines")
        precondition(!contains(line, Array("<script".utf8)) && !contains(line, Array("<img".utf8)), "markup got through unescaped")
        let page = PageRenderer.mainPage(user: user.value, fragments: [line], olderArchive: nil)
        precondition(String(validating: page, as: UTF8.self) != nil, "the page is not UTF-8")
        let lines = page.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        precondition(lines.filter { contains(Array($0), Array(PageRenderer.headingMarker.utf8)) }.count == 1, "not one heading line")
        precondition(lines.filter { $0.starts(with: Array("<article".utf8)) }.map(Array.init) == [line], "the post is not one line of the page")
    }
}
