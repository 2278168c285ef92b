import BlogCore
import BlogModel
import Foundation
import BlogWire
import BlogPages

// The codec meets hostile bytes first, so it is what we fuzz: framing with
// arbitrary chunking, request parsing, and the page a parsed post becomes.
// Every invariant is a `precondition`, so a violation is a crash libFuzzer
// reports with the input that caused it.

/// Checks one input; crashes on any broken invariant.
func check(_ data: [UInt8]) {
    let limit = 512
    // The first byte picks the chunk size, so libFuzzer explores splits of
    // terminators and multi-byte characters across reads.
    let chunk = max(1, Int(data.first ?? 1) % 17)
    var decoder = FrameDecoder(maxMessageBytes: limit)
    var start = 0
    var messages = 0
    while start < data.count {
        let end = min(data.count, start + chunk)
        decoder.append(data[start..<end])
        start = end
        while let event = decoder.next() {
            switch event {
            case .message(let body):
                messages += 1
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
    checkProxyHeader(data)
}

/// A PROXY header: parsing never crashes, never takes more than the caps,
/// and is incremental: every shorter prefix of a header needs more, and
/// bytes after a header or after an invalid start change nothing.
func checkProxyHeader(_ data: [UInt8]) {
    let result = ProxyHeader.parse(data)
    switch result {
    case .needMore:
        precondition(data.count < ProxyHeader.maxV2Bytes, "still undecided past the cap")
    case .header(let header, let consumed):
        precondition(consumed > 0 && consumed <= data.count, "consumed \(consumed) of \(data.count)")
        let cap = header.version == .v1 ? ProxyHeader.maxV1Bytes : ProxyHeader.maxV2Bytes
        precondition(consumed <= cap, "a header over its cap")
        precondition(ProxyHeader.parse(Array(data[..<consumed])) == result, "the header alone parses differently")
        for end in 0..<consumed {
            let prefix = ProxyHeader.parse(Array(data[..<end]))
            precondition(prefix == .needMore, "a prefix of a header was decided: \(prefix)")
        }
        if let source = header.source {
            precondition(source.address.count == 4 || source.address.count == 16, "an address of \(source.address.count) bytes")
        }
    case .invalid:
        precondition(ProxyHeader.parse(data + [0x0D, 0x0A, 0x00]) == result, "more bytes undid a refusal")
    }
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
        let post = PostRecord(id: 7, userID: 1, title: title, content: content, createdAt: Date(timeIntervalSince1970: 0))
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

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

#if !FUZZING
/// Without libFuzzer: replays the files (or folders of files) given, e.g.
/// the seed corpus, so a crash found once stays a regression check.
@main
enum Replay {
    static func main() {
        var count = 0
        for path in CommandLine.arguments.dropFirst() {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("BlogFuzz: no such file: \(path)\n".utf8))
                exit(1)
            }
            let files = isFolder.boolValue
                ? (try? FileManager.default.contentsOfDirectory(atPath: path).sorted().map { path + "/" + $0 }) ?? []
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                check(Array(data))
                count += 1
            }
        }
        print("replayed \(count) inputs, no invariant broken")
    }
}
#endif

#if FUZZING
// SwiftPM links an executable's entry point as `<module>_main`; under
// libFuzzer that entry point hands control to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("BlogFuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzOne)
}
#endif
