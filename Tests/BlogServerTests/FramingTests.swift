import BlogCore
import BlogServer
import Foundation
import Testing

/// How messages are cut out of the byte stream, over a real socket.
@Suite("Framing over the wire")
struct FramingTests {
    @Test func netcatLineWithTrailingNewline() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let (reply, end) = try f.exchange("login:a:b[E];\n")
        #expect(reply == "log:NA[E];")
        #expect(end == .eof)
    }

    @Test func whitespaceBeforeTheMessageIsSkipped() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask("\r\n \t\n  register:Spacey:pw[E];\r\n") == "reg:OK[E];")
        #expect(try f.store.user(named: "Spacey")?.name == "Spacey")
    }

    @Test func whitespaceBetweenKeepAliveMessagesIsSkipped() throws {
        let f = try ServerFixture { $0.connection.keepAlive = true }
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("register:Lines:pw[E];\n")
        #expect(try client.readReply() == "reg:OK[E];")
        try client.send("\r\nlogin:Lines:pw[E];\r\n\n")
        #expect(try client.readReply() == "log:OK[E];")
        client.halfClose()
        #expect(client.expectCleanEOF() == .eof)
    }

    @Test func bytesArrivingOneAtATime() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let client = try f.client()
        try client.sendSlowly("register:Slow:pass word[E];")
        #expect(try client.readReply() == "reg:OK[E];")
        #expect(client.expectCleanEOF() == .eof)
        #expect(try f.ask("login:Slow:pass word[E];") == "log:OK[E];")
    }

    @Test(arguments: ["[", "[E", "[E]"])
    func terminatorSplitAcrossWrites(_ head: String) throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("register:Split:pw" + head)
        // Give the server time to read (and keep) the first part.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(!client.hasInput(within: 0.05), "no reply before the terminator is complete")
        try client.send(String("[E];".dropFirst(head.count)))
        #expect(try client.readReply() == "reg:OK[E];")
        #expect(client.expectCleanEOF() == .eof)
        // The password is "pw", not "pw[" or similar.
        #expect(try f.ask("login:Split:pw[E];") == "log:OK[E];")
    }

    @Test func partialTerminatorInsideContentIsKept() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("Brackets")
        #expect(try f.ask("newpost:Brackets:Title:a [E] b [E c E]; d[E];") == "post:OK[E];")
        let id = try #require(try f.store.user(named: "Brackets")?.id)
        #expect(try f.store.posts(ofUserID: id).first?.content == "a [E] b [E c E]; d")
    }

    /// Connection.pump: a message cut off by the peer's close gets err:ARGS.
    @Test func missingTerminatorThenHalfCloseIsAnswered() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("register:Cut:pw")
        client.halfClose()
        let (reply, end) = client.readToEnd()
        #expect(reply == "err:ARGS[E];")
        #expect(end == .eof)
        #expect(try f.store.user(named: "Cut") == nil)
        // The server lives on.
        #expect(try f.ask("register:Cut:pw[E];") == "reg:OK[E];")
    }

    @Test func halfOfATerminatorThenHalfCloseIsAnswered() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("login:a:b[E]")
        client.halfClose()
        let (reply, end) = client.readToEnd()
        #expect(reply == "err:ARGS[E];")
        #expect(end == .eof)
    }

    @Test func halfCloseWithoutAnyBytesGetsNoReply() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let client = try f.client()
        try client.send(" \r\n")
        client.halfClose()
        let (reply, end) = client.readToEnd()
        #expect(reply == "")
        #expect(end == .eof)
        client.close()
        #expect(eventually { f.server.connectionCount == 0 })
    }

    @Test func closeWithoutAnyBytes() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        for _ in 0..<5 {
            let client = try f.client()
            client.close()
        }
        #expect(eventually { f.server.connectionCount == 0 })
        #expect(try f.ask("register:After:pw[E];") == "reg:OK[E];")
    }

    @Test func contentWithLineBreaksAndColonsIsKeptVerbatim() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("Writer")
        let content = "line one\nline: two\r\n\tthree <&> \"quoted\" 'single'"
        #expect(try f.ask("newpost:Writer:Notes: \(content)[E];") == "post:OK[E];")
        let id = try #require(try f.store.user(named: "Writer")?.id)
        let post = try #require(try f.store.posts(ofUserID: id).first)
        #expect(post.title == "Notes")
        #expect(post.content == " " + content)
        let page = try #require(f.page(of: "Writer"))
        #expect(page.contains("&lt;&amp;&gt;"))
        #expect(!page.contains("<&>"))
    }

    @Test func multiByteUTF8SplitAcrossWrites() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        try f.registerAndLogin("Czech")
        let client = try f.client()
        // "Žluťoučký kůň" with its multi-byte characters cut in the middle.
        let bytes = Array("newpost:Czech:Kůň:Žluťoučký kůň úpěl ďábelské ódy[E];".utf8)
        let cut = bytes.firstIndex(of: 0xC5)! + 1
        try client.send(Array(bytes[..<cut]))
        Thread.sleep(forTimeInterval: 0.05)
        try client.send(Array(bytes[cut...]))
        #expect(try client.readReply() == "post:OK[E];")
        let id = try #require(try f.store.user(named: "Czech")?.id)
        let post = try #require(try f.store.posts(ofUserID: id).first)
        #expect(post.title == "Kůň")
        #expect(post.content == "Žluťoučký kůň úpěl ďábelské ódy")
    }
}
