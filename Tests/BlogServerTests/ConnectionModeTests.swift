import BlogCore
import BlogServer
import BlogTestSupport
import Foundation
import Testing

/// One message per connection (the default, as the original) and keep-alive.
@Suite("Connection modes")
struct ConnectionModeTests {
    // MARK: Default: one message per connection

    @Test func defaultModeRepliesThenHalfCloses() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("register:Once:pw[E];")
        #expect(try client.readReply() == "reg:OK[E];")
        // The server closed its write half: EOF, not a reset, and no more bytes.
        #expect(client.expectCleanEOF() == .eof)
        client.close()
        #expect(eventually { f.server.connectionCount == 0 })
    }

    /// `printf 'login:a:b[E];' | nc -N host port`: the message and the
    /// client's FIN arrive together; the reply still comes.
    @Test(arguments: [false, true])
    func messageThenImmediateHalfCloseIsAnswered(keepAlive: Bool) throws {
        let f = try ServerFixture { $0.connection.keepAlive = keepAlive }
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("register:Quick:pw[E];")
        client.halfClose()
        let (reply, end) = client.readToEnd()
        #expect(reply == "reg:OK[E];")
        #expect(end == .eof)
    }

    @Test func defaultModeIgnoresASecondMessage() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("register:First:pw[E];")
        #expect(try client.readReply() == "reg:OK[E];")
        // The server still reads (and discards) what follows: sending works,
        // but nothing answers it.
        try client.send("register:Second:pw[E];")
        #expect(client.expectCleanEOF() == .eof)
        #expect(try f.store.user(named: "Second") == nil)
    }

    @Test func defaultModeAnswersOnlyTheFirstOfTwoMessagesInOneWrite() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let (reply, end) = try f.exchange("register:One:pw[E];register:Two:pw[E];")
        #expect(reply == "reg:OK[E];")
        #expect(end == .eof)
        #expect(try f.store.user(named: "One") != nil)
        #expect(try f.store.user(named: "Two") == nil)
    }

    /// The server must not reset a connection that still has unread bytes:
    /// a reset would destroy the reply before the client reads it.
    @Test(arguments: [16, 100_000, 1_000_000])
    func extraBytesAfterTheMessageDoNotCauseAReset(_ garbageCount: Int) throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let client = try f.client()
        let garbage = [UInt8](repeating: UInt8(ascii: "x"), count: garbageCount)
        // Sent on a thread: a million bytes may not fit in the socket buffers.
        let sendError = Locked<String?>(nil)
        let sender = Background {
            do { try client.send(Array("login:a:b[E];".utf8) + garbage) } catch {
                sendError.withLock { $0 = "\(error)" }
            }
        }
        // Read late, when a careless server would have closed already.
        Thread.sleep(forTimeInterval: 0.3)
        let (reply, end) = client.readToEnd()
        #expect(reply == "log:NA[E];")
        #expect(end == .eof)
        // The server reads (and drops) everything we send, and does not
        // answer it with a reset.
        #expect(sender.wait())
        #expect(sendError.value == nil, "\(String(describing: sendError.value))")
        // Still within the linger time, more bytes are taken quietly too.
        for _ in 0..<2 {
            Thread.sleep(forTimeInterval: 0.1)
            #expect(throws: Never.self) { try client.send("more garbage") }
        }
        #expect(client.readToEnd().end == .eof, "no reset after the end of the stream")
    }

    @Test func serverClosesAfterLingerWhenThePeerNeverCloses() throws {
        let f = try ServerFixture { $0.connection.lingerTimeout = 0.3 }
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("login:a:b[E];")
        #expect(try client.readReply() == "log:NA[E];")
        #expect(client.expectCleanEOF() == .eof)
        // We keep our half open; the server lets go after the linger time.
        f.advance(by: 0.29)
        #expect(f.server.connectionCount == 1)
        f.advance(by: 0.01)
        #expect(eventually { f.server.connectionCount == 0 })
    }

    // MARK: Keep-alive

    @Test func keepAliveAnswersMessagesInOrder() throws {
        let f = try ServerFixture { $0.connection.keepAlive = true }
        defer { f.tearDown() }
        let client = try f.client()
        let exchanges = [
            ("register:Kept:pw[E];", "reg:OK[E];"),
            ("register:kept:pw[E];", "reg:NA[E];"),
            ("login:Kept:wrong[E];", "log:NA[E];"),
            ("login:Kept:pw[E];", "log:OK[E];"),
            ("newpost:Kept:One:first[E];", "post:OK[E];"),
            ("bogus[E];", "err:CMD[E];"),
            ("newpost:Kept:Two:second[E];", "post:OK[E];"),
            ("newpost:Nobody:T:c[E];", "post:NA[E];"),
        ]
        for (message, expected) in exchanges {
            try client.send(message)
            #expect(try client.readReply() == expected, "reply to \(message)")
        }
        client.halfClose()
        #expect(client.expectCleanEOF() == .eof)
        #expect(try f.postCount(of: "Kept") == 2)
    }

    @Test func keepAliveAnswersPipelinedMessagesInOrder() throws {
        let f = try ServerFixture { $0.connection.keepAlive = true }
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("register:Pipe:pw[E];login:Pipe:no[E];login:Pipe:pw[E];nope[E];"
            + "newpost:Pipe:T1:c1[E];\nnewpost:Pipe:T2:c2[E];register:Pipe:pw[E];")
        let expected = ["reg:OK[E];", "log:NA[E];", "log:OK[E];", "err:CMD[E];",
                        "post:OK[E];", "post:OK[E];", "reg:NA[E];"]
        for reply in expected {
            #expect(try client.readReply() == reply)
        }
        client.halfClose()
        #expect(client.expectCleanEOF() == .eof)
        let id = try #require(try f.store.user(named: "Pipe")?.id)
        #expect(try f.store.posts(ofUserID: id).map(\.title) == ["T2", "T1"])
    }

    /// Many replies for a peer that reads late: the server must neither lose
    /// nor reorder them while it waits for the peer to read.
    @Test func keepAliveManyPipelinedMessagesWithASlowReader() throws {
        let f = try ServerFixture {
            $0.connection.keepAlive = true
            $0.connection.maxQueuedReplyBytes = 256
        }
        defer { f.tearDown() }
        let client = try f.client(timeout: 20, receiveBuffer: 4096)
        let count = 20_000
        var stream: [UInt8] = []
        for index in 0..<count {
            stream += Array((index % 2 == 0 ? "nope\(index)[E];" : "login:a:[E];").utf8)
        }
        let sent = stream
        let sender = Background {
            try? client.send(sent)
            client.halfClose()
        }
        Thread.sleep(forTimeInterval: 0.3)
        let (text, end) = client.readToEnd()
        #expect(sender.wait())
        #expect(end == .eof)
        let replies = text.components(separatedBy: "[E];").dropLast()
        #expect(replies.count == count)
        let misplaced = replies.enumerated().filter { index, reply in
            reply != (index % 2 == 0 ? "err:CMD" : "err:ARGS")
        }
        #expect(misplaced.isEmpty, "first misplaced: \(String(describing: misplaced.first))")
    }

    @Test func keepAliveIdleTimeoutClosesWithErrTime() throws {
        let f = try ServerFixture {
            $0.connection.keepAlive = true
            $0.connection.readTimeout = 0.5
        }
        defer { f.tearDown() }
        let client = try f.acceptedClient()
        // The reply comes 0.4 s in: the idle time counts from there.
        try client.send("login:a:b")
        f.advance(by: 0.4)
        try client.send("[E];")
        #expect(try client.readReply() == "log:NA[E];")
        f.advance(by: 0.4)
        try client.send("login:a:b[E];")
        #expect(try client.readReply() == "log:NA[E];", "0.8 s after the start, 0.4 s idle: not timed out")
        f.advance(by: 0.5)
        #expect(try client.readReply() == "err:TIME[E];")
        #expect(client.expectCleanEOF() == .eof)
    }

    @Test func keepAliveIdleTimeoutRestartsWithEveryMessage() throws {
        let f = try ServerFixture {
            $0.connection.keepAlive = true
            $0.connection.readTimeout = 0.6
        }
        defer { f.tearDown() }
        let client = try f.acceptedClient()
        // Together longer than one timeout, each gap shorter.
        for _ in 0..<4 {
            f.advance(by: 0.5)
            try client.send("login:a:b[E];")
            #expect(try client.readReply() == "log:NA[E];")
        }
        f.advance(by: 0.6)
        #expect(try client.readReply() == "err:TIME[E];")
        #expect(client.expectCleanEOF() == .eof)
    }

    @Test func keepAlivePeerCloseEndsTheConnection() throws {
        let f = try ServerFixture { $0.connection.keepAlive = true }
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("login:a:b[E];")
        #expect(try client.readReply() == "log:NA[E];")
        client.close()
        #expect(eventually { f.server.connectionCount == 0 })
    }

    // MARK: IPv6

    @Test(.enabled(if: ipv6LoopbackAvailable, "no IPv6 loopback"))
    func servesOverIPv6Loopback() throws {
        let f: ServerFixture
        do {
            f = try ServerFixture(host: "::1")
        } catch let error as ServerError {
            // Bound in the probe but not here: treat as unsupported.
            print("skipping IPv6: \(error)")
            return
        }
        defer { f.tearDown() }
        #expect(try f.ask("register:Six:pw[E];") == "reg:OK[E];")
        #expect(try f.ask("login:Six:pw[E];") == "log:OK[E];")
        #expect(try f.ask("newpost:Six:IPv6:over ::1[E];") == "post:OK[E];")
        #expect(try f.postCount(of: "Six") == 1)
    }

    /// A lease belongs to an address: ::1 is not 127.0.0.1.
    @Test(.enabled(if: ipv6LoopbackAvailable, "no IPv6 loopback"))
    func leaseIsPerAddressFamily() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let six = try f.extraServer(host: "::1")
        #expect(try f.ask("register:Fam:pw[E];") == "reg:OK[E];")
        let v6 = try f.client(server: six, host: "::1")
        try v6.send("newpost:Fam:T:c[E];")
        #expect(try v6.readReply() == "post:NA[E];")
        let login6 = try f.client(server: six, host: "::1")
        try login6.send("login:Fam:pw[E];")
        #expect(try login6.readReply() == "log:OK[E];")
        let post6 = try f.client(server: six, host: "::1")
        try post6.send("newpost:Fam:T:c[E];")
        #expect(try post6.readReply() == "post:OK[E];")
    }

    /// On a dual-stack listener ("*") an IPv4 client arrives as an
    /// IPv4-mapped IPv6 address; it must count as the same address as on a
    /// plain IPv4 listener, so its lease carries over.
    @Test(.enabled(if: ipv6LoopbackAvailable, "no IPv6 loopback"))
    func ipv4MappedPeerHasTheSameLeaseAsPlainIPv4() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        let dual = try f.extraServer(host: "*")
        #expect(try f.ask("register:Mapped:pw[E];") == "reg:OK[E];")
        let viaDual = try f.client(server: dual, host: "127.0.0.1")
        try viaDual.send("newpost:Mapped:Dual:stack[E];")
        #expect(try viaDual.readReply() == "post:OK[E];")
        #expect(viaDual.expectCleanEOF() == .eof)
        // The same listener reached over ::1 is another address.
        let viaSix = try f.client(server: dual, host: "::1")
        try viaSix.send("newpost:Mapped:Six:no lease[E];")
        #expect(try viaSix.readReply() == "post:NA[E];")
        #expect(try f.postCount(of: "Mapped") == 1)
    }
}
