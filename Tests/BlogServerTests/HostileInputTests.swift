import BlogCore
import BlogServer
import BlogTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a hostile client can send: path tricks in names, markup in posts,
/// broken UTF-8, messages cut anywhere, a flood of bytes, binary garbage.
@Suite("Hostile input")
struct HostileInputTests {
    // MARK: Names that try to leave the public folder

    static let escapingNames: [String] = [
        "../x", "..", ".", "a/b", "/etc/passwd", "a\u{0}b", "%2e%2e", "%2e%2e%2fx",
        String(repeating: "a", count: 33), String(repeating: "n", count: 10_000),
        "alice.html", "a\\b", "..\\x", "\\", "..%5cx",
        "alice\u{2215}x",      // DIVISION SLASH, looks like `/`
        "\u{FF0E}\u{FF0E}",    // FULLWIDTH FULL STOP twice, looks like `..`
        "ａｌｉｃｅ",             // fullwidth letters
        "alice\n", " alice", "alice ", "-alice", "_alice", "~root", "a*b", "a?b", "$HOME",
    ]

    /// Every operation that names a user refuses these names, and no file
    /// appears in the public folder or beside it.
    @Test(arguments: escapingNames)
    func nameThatEscapesThePublicFolderIsRefused(_ name: String) throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let publicBefore = Hostile.listing(f.publicFolder)
        let parentBefore = Hostile.listing(f.folder)
        #expect(try f.ask("register:\(name):pw[E];") == "err:ARGS[E];")
        #expect(try f.ask("login:\(name):pw[E];") == "err:ARGS[E];")
        #expect(try f.ask("newpost:\(name):Title:Text[E];") == "err:ARGS[E];")
        #expect(try f.store.userSummaries().isEmpty)
        #expect(Hostile.listing(f.publicFolder) == publicBefore)
        #expect(Hostile.listing(f.folder) == parentBefore)
    }

    // MARK: Markup in titles and posts

    static let markup: [String] = [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "\"><svg onload=alert(1)>",
        "'><svg/onload=alert(1)>",
        "</article></main><script>alert(1)</script>",
        "</h1><h1>fake heading",
        "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
        "<iframe src=//evil.example/frame>",
        "<!-- comment --><style>*{}</style>",
        "&amp; &lt;b&gt;",
    ]

    /// The tags blogd itself writes; anything else on a page came from a user.
    static let ownTags: Set<String> = [
        "!doctype", "html", "head", "meta", "title", "link", "body", "main", "h1", "h2",
        "article", "p", "time", "div", "br", "nav", "a", "footer", "span",
        // The search form at every page's foot.
        "form", "input", "button",
    ]
    static let ownAttributes: Set<String> = [
        "lang", "charset", "name", "content", "rel", "href", "class", "id", "datetime", "type", "title",
        // The search form's.
        "action", "method", "role", "maxlength", "aria-label", "placeholder", "value",
    ]

    /// The tags and attribute names of an HTML text, lower-cased; markup
    /// that is not a well-formed tag of ours is reported as `problems`.
    static func markupOf(_ html: String) -> (tags: Set<String>, attributes: Set<String>, problems: [String]) {
        var tags = Set<String>()
        var attributes = Set<String>()
        var problems: [String] = []
        let bytes = Array(html.utf8)
        var index = 0
        func isNameByte(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "!")
        }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "/") { index += 1 }
            let nameStart = index
            while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
            let tag = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            guard !tag.isEmpty else {
                problems.append("a bare < at byte \(nameStart)")
                continue
            }
            tags.insert(tag)
            // Attributes: name, or name="value" (values never hold a quote:
            // user text has them escaped).
            while index < bytes.count, bytes[index] != UInt8(ascii: ">") {
                if bytes[index] == UInt8(ascii: " ") { index += 1; continue }
                let attributeStart = index
                while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
                guard index > attributeStart else {
                    problems.append("junk in <\(tag)> at byte \(index)")
                    index += 1
                    continue
                }
                let attribute = String(decoding: bytes[attributeStart..<index], as: UTF8.self).lowercased()
                if tag != "!doctype" { attributes.insert(attribute) }
                if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                    index += 1
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                        problems.append("unquoted value of \(attribute) in <\(tag)>")
                        continue
                    }
                    index += 1
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") { index += 1 }
                    index += 1
                }
            }
        }
        return (tags, attributes, problems)
    }

    /// After a real register, login and newpost, hostile markup is on the
    /// page only as escaped text: no tag or attribute that blogd does not
    /// write itself, the page still parses, and the database keeps the text
    /// verbatim.
    @Test func markupInTitlesAndPostsIsEscaped() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask("register:Mallory:pw[E];") == "reg:OK[E];")
        #expect(try f.ask("login:Mallory:pw[E];") == "log:OK[E];")
        var sent: [(title: String, content: String)] = []
        for (index, payload) in Self.markup.enumerated() {
            let title = "\(index) \(payload)"
            let content = "before \(payload) after\n\(payload)\r\n</h1>\n<script>alert(\(index))</script>"
            #expect(try f.ask("newpost:Mallory:\(title):\(content)[E];") == "post:OK[E];", "\(payload)")
            sent.append((title, content))
        }
        let page = try #require(f.page(of: "Mallory"))
        let lowered = page.lowercased()
        for forbidden in ["<script", "<img", "<svg", "<iframe", "<style", "<!--", "</h1><h1"] {
            #expect(!lowered.contains(forbidden), "\(forbidden) on the page")
        }
        let (tags, attributes, problems) = Self.markupOf(page)
        #expect(tags.isSubset(of: Self.ownTags), "foreign tags \(tags.subtracting(Self.ownTags))")
        #expect(attributes.isSubset(of: Self.ownAttributes),
                "foreign attributes \(attributes.subtracting(Self.ownAttributes))")
        #expect(problems.isEmpty, "\(problems)")
        // The structure survived: one heading, one main, one article per post.
        #expect(page.components(separatedBy: "</h1>").count - 1 == 1)
        #expect(page.components(separatedBy: "</main>").count - 1 == 1)
        #expect(page.components(separatedBy: "</article>").count - 1 == Self.markup.count)
        #expect(page.components(separatedBy: "<article class=\"post h-entry\" id=\"post-").count - 1 == Self.markup.count)
        // The literal entity is escaped once more, so a browser shows it as typed.
        #expect(page.contains("&amp;amp; &amp;lt;b&amp;gt;"))
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.contains("&quot;&gt;&lt;svg onload=alert(1)&gt;"))
        #expect(page.contains("&#39;&gt;&lt;svg/onload=alert(1)&gt;"))
        // The database is the source of truth and keeps the text as sent.
        let id = try #require(try f.store.user(named: "Mallory")?.id)
        let stored = try f.store.posts(ofUserID: id).reversed()
        #expect(stored.map(\.title) == sent.map(\.title))
        #expect(stored.map(\.content) == sent.map(\.content))
    }

    // MARK: Invalid UTF-8

    static let invalidSequences: [[UInt8]] = [
        [0xC0, 0xAF],           // overlong `/`
        [0x80],                 // lone continuation byte
        [0xED, 0xA0, 0x80],     // UTF-16 surrogate
        [0xE2, 0x82],           // truncated sequence
        [0xF8, 0x88, 0x80, 0x80, 0x80], // five-byte form
        [0xFF],
    ]

    /// Message templates with the bad bytes at `|`, covering every field.
    static let utf8Positions: [String] = [
        "reg|ister:Someone:pw",
        "|register:Someone:pw",
        "register:Some|one:pw",
        "register:|:pw",
        "register:..|x:pw",
        "register:Someone:p|w",
        "register:Someone:|",
        "login:Poster|:pw",
        "login:Poster:pw|",
        "newpost:Poster|:Title:Text",
        "newpost:Poster:Ti|tle:Text",
        "newpost:Poster:|:Text",
        "newpost:Poster:Title:Te|xt",
        "newpost:Poster:Title:Text|",
        "newpost:Poster:Title:|",
    ]

    @Test(arguments: invalidSequences)
    func invalidUTF8InEveryFieldIsRefusedAndNothingStored(_ bad: [UInt8]) throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("Poster")
        let page = f.page(of: "Poster")
        let publicBefore = Hostile.listing(f.publicFolder)
        for template in Self.utf8Positions {
            let parts = template.split(separator: "|", omittingEmptySubsequences: false)
            let message = Array(parts[0].utf8) + bad + Array(parts[1].utf8) + TestClient.terminator
            let (reply, end) = try f.exchange(message)
            #expect(reply == "err:ARGS[E];", "\(template) with \(bad)")
            #expect(end == .eof)
        }
        #expect(try f.store.userSummaries().map(\.name) == ["Poster"])
        #expect(try f.postCount(of: "Poster") == 0)
        #expect(f.page(of: "Poster") == page)
        #expect(Hostile.listing(f.publicFolder) == publicBefore)
        // A refused login is not a wrong password: the real one still works.
        #expect(try f.ask("login:Poster:pw[E];") == "log:OK[E];")
    }

    // MARK: Messages cut anywhere

    /// One connection, one post split at every byte (multi-byte characters
    /// included): each arrives whole and is answered once.
    @Test func postSplitAtEveryByteOnAKeepAliveConnection() throws {
        let f = try ServerFixture { $0.connection.keepAlive = true }
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("register:Splitter:pw[E];")
        #expect(try client.readReply() == "reg:OK[E];")
        let message = Array("newpost:Splitter:Tí:tle Žluť € 𝄞 [E] done[E];".utf8)
        let cuts = 1..<message.count
        for cut in cuts {
            try client.send(Array(message[..<cut]))
            Thread.sleep(forTimeInterval: 0.002)
            try client.send(Array(message[cut...]))
            #expect(try client.readReply() == "post:OK[E];", "cut at \(cut)")
        }
        client.halfClose()
        #expect(client.expectCleanEOF() == .eof)
        let id = try #require(try f.store.user(named: "Splitter")?.id)
        let posts = try f.store.posts(ofUserID: id)
        #expect(posts.count == cuts.count)
        #expect(posts.allSatisfy { $0.title == "Tí" && $0.content == "tle Žluť € 𝄞 [E] done" })
    }

    /// The original one-message connections, a register cut at every byte.
    @Test func registerSplitAtEveryByteInDefaultMode() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let length = "register:S00:pw[E];".utf8.count
        for cut in 1..<length {
            let name = "S" + (cut < 10 ? "0" : "") + "\(cut)"
            let message = Array("register:\(name):pw[E];".utf8)
            let client = try f.client()
            defer { client.close() }
            try client.send(Array(message[..<cut]))
            Thread.sleep(forTimeInterval: 0.002)
            try client.send(Array(message[cut...]))
            let (reply, end) = client.readToEnd()
            #expect(reply == "reg:OK[E];", "cut at \(cut)")
            #expect(end == .eof)
        }
        #expect(try f.store.userSummaries().count == length - 1)
    }

    @Test(arguments: 1...3)
    func terminatorSplitAcrossReads(_ cut: Int) throws {
        let f = try ServerFixture { $0.connection.keepAlive = true }
        defer { f.tearDown() }
        let client = try f.client()
        let terminator = "[E];"
        let head = String(terminator.prefix(cut))
        let tail = String(terminator.dropFirst(cut))
        try client.send("register:First:pw" + head)
        Thread.sleep(forTimeInterval: 0.02)
        #expect(!client.hasInput(within: 0.05), "answered before the terminator was whole")
        // The rest of the terminator and the next message in one write.
        try client.send(tail + "login:First:pw" + head)
        #expect(try client.readReply() == "reg:OK[E];")
        Thread.sleep(forTimeInterval: 0.02)
        try client.send(tail)
        #expect(try client.readReply() == "log:OK[E];")
        client.halfClose()
        #expect(client.expectCleanEOF() == .eof)
    }

    static let cutMessages = [
        "register:Cut:pw",
        "register:Cut:pw[E",
        "register:Cut:pw[E]",
        "newpost:Poster:Title:Text",
        "newpost:Poster:Title:Text[E]",
        "newpost:Poster:Title:Te[E]xt",
    ]

    /// A message without its terminator, then the client's half-close:
    /// answered `err:ARGS` (Connection.pump), and nothing is stored.
    @Test(arguments: cutMessages, [false, true])
    func missingTerminatorThenHalfClose(_ message: String, keepAlive: Bool) throws {
        let f = try ServerFixture { $0.connection.keepAlive = keepAlive }
        defer { f.tearDown() }
        #expect(try f.askOne("register:Poster:pw[E];") == "reg:OK[E];")
        let page = f.page(of: "Poster")
        let client = try f.client()
        try client.send(message)
        client.halfClose()
        let (reply, end) = client.readToEnd()
        #expect(reply == "err:ARGS[E];")
        #expect(end == .eof)
        #expect(try f.store.user(named: "Cut") == nil)
        #expect(try f.postCount(of: "Poster") == 0)
        #expect(f.page(of: "Poster") == page)
    }

    @Test func wholeMessageThenCutOneThenHalfCloseInKeepAlive() throws {
        let f = try ServerFixture { $0.connection.keepAlive = true }
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("register:Whole:pw[E];register:Cut:pw[E]")
        client.halfClose()
        #expect(try client.readReply() == "reg:OK[E];")
        #expect(try client.readReply() == "err:ARGS[E];")
        #expect(client.expectCleanEOF() == .eof)
        #expect(try f.store.userSummaries().map(\.name) == ["Whole"])
    }

    /// A message missing its terminator on a connection held open gets
    /// `err:TIME` after the read timeout, and nothing is stored.
    @Test(arguments: ["newpost:Poster:Title:Text[E]", "register:Held:pw"])
    func missingTerminatorHeldOpenGetsErrTime(_ message: String) throws {
        let timeout = 0.5
        let f = try ServerFixture { $0.connection.readTimeout = timeout }
        defer { f.tearDown() }
        try f.registerAndLogin("Poster")
        let client = try f.acceptedClient()
        try client.send(message)
        f.advance(by: timeout * 0.9)
        #expect(!client.hasInput(within: 0.05), "no reply before the timeout")
        f.advance(by: timeout * 0.1)
        #expect(try client.readReply() == "err:TIME[E];")
        #expect(client.expectCleanEOF() == .eof)
        #expect(try f.postCount(of: "Poster") == 0)
        #expect(try f.store.user(named: "Held") == nil)
    }

    // MARK: A flood of bytes

    /// What one 10 MB flood showed.
    struct Flood {
        var reply: String
        var end: StreamEnd?
        /// Bytes sent when the reply was first readable.
        var answeredAt: Int
        var sent: Int
        var sendError: ClientError?
        var rssBefore: Int
        var rssPeak: Int
        var rssAfter: Int

        var growth: Int { rssAfter - rssBefore }
        var peakGrowth: Int { rssPeak - rssBefore }

        var summary: String {
            "err:SIZE seen after \(Hostile.megabytes(answeredAt)) of \(Hostile.megabytes(sent)) sent"
                + (sendError.map { " (then \($0))" } ?? "")
                + "; RSS before \(Hostile.megabytes(rssBefore)), peak \(Hostile.megabytes(rssPeak)),"
                + " after \(Hostile.megabytes(rssAfter))"
        }
    }

    /// Sends `total` bytes of one unterminated message on a new connection
    /// as fast as the kernel takes them, noting when the reply arrives and
    /// the resident size before, during and after.
    static func flood(_ f: ServerFixture, total: Int) throws -> Flood {
        let chunkSize = 64 * 1024
        // Generated chunk by chunk, so the client holds 64 KiB, not 10 MB.
        var chunk = [UInt8](repeating: UInt8(ascii: "p"), count: chunkSize)
        let head = Array("register:Huge:".utf8)
        chunk.replaceSubrange(0..<head.count, with: head)
        let client = try f.client(timeout: 60)
        defer { client.close() }
        // A modest send buffer: the client cannot run megabytes ahead of
        // the server's reads in the kernel, so when the reply shows up
        // tells how much the server read before answering.
        Hostile.setSendBuffer(client.fd, 64 * 1024)
        let before = Hostile.residentBytes
        let sampling = Locked(true)
        let peak = Locked(before)
        let sampler = Background {
            while sampling.value {
                let now = Hostile.residentBytes
                peak.withLock { $0 = max($0, now) }
                Thread.sleep(forTimeInterval: 0.002)
            }
        }
        var sent = 0
        var answeredAt: Int?
        var sendError: ClientError?
        while sent < total {
            do {
                try client.send(chunk)
            } catch {
                sendError = error
                break
            }
            sent += chunk.count
            if sent == chunk.count {
                chunk.replaceSubrange(0..<head.count, with: repeatElement(UInt8(ascii: "p"), count: head.count))
            }
            if answeredAt == nil && client.hasInput(within: 0) { answeredAt = sent }
        }
        // The reply comes first; a reset on a later send is allowed.
        let reply = (try? client.readReply()) ?? "no reply"
        var end: StreamEnd?
        if sendError == nil {
            client.halfClose()
            end = client.expectCleanEOF()
        }
        client.close()
        _ = eventually { f.server.connectionCount == 0 }
        sampling.withLock { $0 = false }
        sampler.wait()
        let after = Hostile.residentBytes
        return Flood(reply: reply, end: end, answeredAt: answeredAt ?? sent, sent: sent, sendError: sendError,
                     rssBefore: before, rssPeak: max(peak.value, after), rssAfter: after)
    }

    /// 10 MB in one message, sent as fast as the kernel takes it: the
    /// server answers `err:SIZE` long before the end, stores nothing, and
    /// does not hold the flood in memory.
    ///
    /// The resident size is the whole test process's, and other tests run
    /// beside this one; so a growth of 8 MB or more is measured again (up
    /// to three floods): a server that keeps the flood grows every time,
    /// noise from elsewhere does not repeat on cue.
    @Test func tenMegabyteMessageIsCutOffEarlyWithBoundedMemory() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let total = 10 * 1024 * 1024
        let bound = 8 * 1024 * 1024
        var floods: [Flood] = []
        for _ in 1...3 {
            let flood = try Self.flood(f, total: total)
            floods.append(flood)
            print("10 MB message, flood \(floods.count): \(flood.summary)")
            #expect(flood.reply == "err:SIZE[E];")
            #expect(flood.end == nil || flood.end == .eof, "\(flood.end.map { "\($0)" } ?? "")")
            // Answered after at most a few hundred KB: the server reads one
            // message's worth (64 KiB), then the kernel buffers hold the rest.
            #expect(flood.answeredAt < 2 * 1024 * 1024, "err:SIZE only after \(flood.answeredAt) bytes")
            if flood.growth < bound && flood.peakGrowth < bound { break }
        }
        #expect(floods.contains { $0.growth < bound && $0.peakGrowth < bound },
                "resident size grew by \(floods.map { Hostile.megabytes($0.growth) }) (peaks \(floods.map { Hostile.megabytes($0.peakGrowth) }))")
        print("10 MB message: VmHWM \(Hostile.megabytes(Hostile.peakResidentBytes))")
        #expect(try f.store.userSummaries().isEmpty)
        #expect(Hostile.listing(f.publicFolder).isEmpty)
        #expect(try f.ask("register:After:pw[E];") == "reg:OK[E];")
    }

    // MARK: Binary garbage

    /// Random bytes with terminators sprinkled in, plus a few half-protocol
    /// lines: every message is answered with an error.
    static func garbage(seed: UInt64, count: Int) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        let lines: [[UInt8]] = [
            Array("register:".utf8), Array("newpost:x:".utf8), Array("login:".utf8),
            Array("[E]".utf8), Array("[E];[E];".utf8), Array("\r\n\t ".utf8), [0], [0xFF, 0xFE],
        ]
        var bytes: [UInt8] = []
        while bytes.count < count {
            if Int.random(in: 0..<4, using: &random) == 0 {
                bytes += lines[Int.random(in: 0..<lines.count, using: &random)]
            }
            bytes += random.bytes(Int.random(in: 0...300, using: &random))
            bytes += TestClient.terminator
        }
        return bytes
    }

    @Test(arguments: 1...12)
    func binaryGarbageGetsOnlyErrorsInDefaultMode(_ seed: Int) throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let bytes = Self.garbage(seed: UInt64(seed), count: 4096)
        let (reply, end) = try f.exchange(bytes)
        #expect(["err:ARGS[E];", "err:CMD[E];"].contains(reply), "seed \(seed): \(reply.debugDescription)")
        #expect(end == .eof)
        #expect(try f.ask("register:Normal:pw[E];") == "reg:OK[E];")
        #expect(try f.store.userSummaries().map(\.name) == ["Normal"])
    }

    @Test(arguments: [7, 99, 2026])
    func binaryGarbageGetsOneErrorPerMessageInKeepAlive(_ seed: Int) throws {
        let f = try ServerFixture { $0.connection.keepAlive = true }
        defer { f.tearDown() }
        let bytes = Self.garbage(seed: UInt64(seed), count: 16 * 1024)
        let expected = Hostile.occurrences(of: TestClient.terminator, in: bytes)
        let client = try f.client()
        // Ragged writes, so terminators fall across reads too.
        var random = SeededGenerator(seed: UInt64(seed) &+ 1)
        var offset = 0
        while offset < bytes.count {
            let n = min(bytes.count - offset, Int.random(in: 1...700, using: &random))
            try client.send(Array(bytes[offset..<(offset + n)]))
            offset += n
        }
        client.halfClose()
        var replies: [String] = []
        while let reply = try? client.readReply() { replies.append(reply) }
        #expect(replies.count == expected)
        let unexpected = replies.filter { $0 != "err:ARGS[E];" && $0 != "err:CMD[E];" }
        #expect(unexpected.isEmpty, "\(unexpected.prefix(5))")
        #expect(eventually { f.server.connectionCount == 0 })
        #expect(try f.askOne("register:Normal:pw[E];") == "reg:OK[E];")
        #expect(try f.store.userSummaries().map(\.name) == ["Normal"])
    }
}
