import Testing

@testable import BlogWire

@Suite("FrameDecoder")
struct FrameDecoderTests {
    /// Feeds `chunks` one after another, draining after each, and returns
    /// every event in order.
    private func events(_ chunks: [[UInt8]], limit: Int = Frame.defaultMaxMessageBytes) -> [FrameDecoder.Event] {
        var decoder = FrameDecoder(maxMessageBytes: limit)
        var out: [FrameDecoder.Event] = []
        for chunk in chunks {
            decoder.append(chunk)
            while let event = decoder.next() { out.append(event) }
        }
        return out
    }

    private func messages(_ texts: String...) -> [FrameDecoder.Event] {
        texts.map { .message(bytes($0)) }
    }

    @Test func terminatorConstants() {
        #expect(Frame.terminatorString == "[E];")
        #expect(Frame.terminator == [0x5B, 0x45, 0x5D, 0x3B])
        #expect(Frame.defaultMaxMessageBytes == 65_536)
        #expect(FrameDecoder().maxMessageBytes == 65_536)
        for byte in UInt8.min ... UInt8.max {
            #expect(Frame.isSkippableWhitespace(byte) == [0x20, 0x09, 0x0D, 0x0A].contains(byte))
        }
    }

    @Test func oneMessage() {
        var decoder = FrameDecoder()
        decoder.append(bytes("login:a:b[E];"))
        #expect(decoder.next() == .message(bytes("login:a:b")))
        #expect(decoder.next() == nil)
        #expect(!decoder.hasPartialMessage)
        #expect(decoder.pendingByteCount == 0)
    }

    @Test func emptyMessage() {
        #expect(events([bytes("[E];")]) == [.message([])])
    }

    @Test func whitespaceBeforeMessageIsSkipped() {
        #expect(events([bytes(" \t\r\n  login:a:b[E];")]) == messages("login:a:b"))
        // Whitespace inside and at the end of a body is kept verbatim.
        #expect(events([bytes("\nnewpost:a:t:x y\t\r\n [E];")]) == messages("newpost:a:t:x y\t\r\n "))
    }

    @Test func onlyWhitespaceIsNothingPending() {
        var decoder = FrameDecoder()
        decoder.append(bytes(" \r\n\t \n"))
        #expect(decoder.next() == nil)
        #expect(!decoder.hasPartialMessage)
        #expect(decoder.pendingByteCount == 0)
    }

    @Test func netcatLineEndingsBetweenMessages() {
        // Enter after each message: CR LF (or LF) precedes the next one.
        let stream = "login:a:b[E];\r\nnewpost:a:t:c[E];\n"
        #expect(events([bytes(stream)]) == messages("login:a:b", "newpost:a:t:c"))
        var decoder = FrameDecoder()
        decoder.append(bytes(stream))
        _ = decoder.next()
        _ = decoder.next()
        #expect(!decoder.hasPartialMessage, "trailing line break is not a partial message")
    }

    @Test func otherBytesBeforeMessageAreNotSkipped() {
        // Only space, tab, CR and LF are skipped; a vertical tab or NUL is part of the body.
        #expect(events([[0x0B] + bytes("a[E];")]) == [.message([0x0B] + bytes("a"))])
        #expect(events([[0x00] + bytes("a[E];")]) == [.message([0x00] + bytes("a"))])
    }

    @Test func severalMessagesInOneChunk() {
        let stream = "register:a:b[E];login:a:b[E];  newpost:a:t:c[E];"
        #expect(events([bytes(stream)]) == messages("register:a:b", "login:a:b", "newpost:a:t:c"))
    }

    @Test func messagesAppendedBeforeAnyDrain() {
        var decoder = FrameDecoder()
        decoder.append(bytes("a[E];"))
        decoder.append(bytes("  b[E];"))
        decoder.append(bytes("\nc"))
        #expect(decoder.next() == .message(bytes("a")))
        #expect(decoder.next() == .message(bytes("b")))
        #expect(decoder.next() == nil)
        #expect(decoder.hasPartialMessage)
        #expect(decoder.pendingByteCount == 1)
        decoder.append(bytes("[E];"))
        #expect(decoder.next() == .message(bytes("c")))
    }

    @Test func bytesFedOneAtATime() {
        let stream = bytes(" register:a:b[E];\r\nlogin:a:b:c[E];\nnewpost:a:t:line1\nline2[E];")
        #expect(events(stream.map { [$0] }) == messages("register:a:b", "login:a:b:c", "newpost:a:t:line1\nline2"))
    }

    @Test func terminatorSplitAtEveryPosition() {
        let stream = bytes("newpost:a:t:[E]x[E];")
        for cut in 0 ... stream.count {
            let result = events([Array(stream[..<cut]), Array(stream[cut...])])
            #expect(result == messages("newpost:a:t:[E]x"), "cut at \(cut)")
        }
    }

    @Test func everyTwoWaySplitOfTwoMessages() {
        let stream = bytes("a:1[E];\n b:2[E];")
        for first in 0 ... stream.count {
            for second in first ... stream.count {
                let chunks = [Array(stream[..<first]), Array(stream[first..<second]), Array(stream[second...])]
                #expect(events(chunks) == messages("a:1", "b:2"), "cuts \(first), \(second)")
            }
        }
    }

    @Test func nearTerminatorsStayInTheBody() {
        let body = "a[E]b[E;c E];d[e];f[[E]]g[E[E"
        #expect(events([bytes(body + "[E];")]) == messages(body))
        #expect(events([bytes("[[E];")]) == messages("["))
        #expect(events([bytes("[E[E];")]) == messages("[E"))
    }

    @Test func missingTerminatorGivesNil() {
        var decoder = FrameDecoder()
        decoder.append(bytes("login:a:b[E]"))
        #expect(decoder.next() == nil)
        #expect(decoder.next() == nil)
        #expect(decoder.hasPartialMessage)
        #expect(decoder.pendingByteCount == 12)
        #expect(!decoder.isOversized)
    }

    @Test func messageExactlyAtTheLimitIsAccepted() {
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 16)
        #expect(events([body + Frame.terminator], limit: 16) == [.message(body)])
        // Also when the terminator arrives in pieces after a full-size body.
        #expect(events([body + bytes("[E]"), bytes(";")], limit: 16) == [.message(body)])
        #expect(events([body, bytes("["), bytes("E"), bytes("]"), bytes(";")], limit: 16) == [.message(body)])
        #expect(events((body + Frame.terminator).map { [$0] }, limit: 16) == [.message(body)])
    }

    @Test func messageOneOverTheLimitIsOversized() {
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 17)
        #expect(events([body + Frame.terminator], limit: 16) == [.oversized])
        #expect(events((body + Frame.terminator).map { [$0] }, limit: 16) == [.oversized])
    }

    @Test func oversizedWithoutTerminator() {
        var decoder = FrameDecoder(maxMessageBytes: 16)
        // Limit plus three bytes could still end in a terminator's first three bytes.
        decoder.append([UInt8](repeating: UInt8(ascii: "x"), count: 19))
        #expect(decoder.next() == nil)
        #expect(!decoder.isOversized)
        decoder.append(bytes("x"))
        #expect(decoder.next() == .oversized)
        #expect(decoder.isOversized)
    }

    @Test func streamIsDeadAfterOversized() {
        var decoder = FrameDecoder(maxMessageBytes: 8)
        decoder.append(bytes("123456789[E];ok[E];"))
        #expect(decoder.next() == .oversized)
        #expect(decoder.next() == nil)
        decoder.append(bytes("login:a:b[E];"))
        #expect(decoder.next() == nil)
        #expect(decoder.isOversized)
        #expect(decoder.pendingByteCount == 0)
        #expect(!decoder.hasPartialMessage)
    }

    @Test func messagesBeforeAnOversizedOneAreDelivered() {
        let result = events([bytes("ok[E];0123456789[E];later[E];")], limit: 8)
        #expect(result == [.message(bytes("ok")), .oversized])
    }

    @Test func leadingWhitespaceDoesNotCountTowardsTheLimit() {
        let padding = [UInt8](repeating: 0x20, count: 100)
        #expect(events([padding + bytes("12345678[E];")], limit: 8) == messages("12345678"))
    }

    @Test func bufferStaysBoundedUnderGarbage() {
        var decoder = FrameDecoder(maxMessageBytes: 1024)
        var generator = SystemRandomNumberGenerator()
        var sawOversized = false
        for _ in 0 ..< 100 {
            // No '[' (0x5B), so no terminator can form.
            let chunk = (0 ..< 100).map { _ in
                var byte = UInt8.random(in: .min ... .max, using: &generator)
                if byte == 0x5B { byte = 0x00 }
                return byte
            }
            decoder.append(chunk)
            if let event = decoder.next() {
                #expect(event == .oversized)
                sawOversized = true
                break
            }
            #expect(decoder.pendingByteCount <= 1024 + 3)
        }
        #expect(sawOversized)
    }

    @Test func binaryBytesAreDeliveredVerbatim() {
        // Every byte value except '[' (which could start a terminator), with
        // a non-whitespace first byte.
        let body: [UInt8] = [0xFF] + (UInt8.min ... UInt8.max).filter { $0 != 0x5B } + [0x00, 0xC3, 0x28, 0xED, 0xA0, 0x80]
        #expect(events([body + Frame.terminator]) == [.message(body)])
        #expect(events((body + Frame.terminator).map { [$0] }) == [.message(body)])
    }

    @Test func manyPipelinedMessages() {
        // Enough to pass the lazy compaction threshold several times, with a
        // partial message left over that must survive it.
        var stream: [UInt8] = []
        for index in 0 ..< 5000 { stream += bytes("m\(index)[E];\n") }
        stream += bytes("tail:part")
        var decoder = FrameDecoder()
        decoder.append(stream)
        var got: [FrameDecoder.Event] = []
        while let event = decoder.next() { got.append(event) }
        #expect(got.count == 5000)
        #expect(got.first == .message(bytes("m0")))
        #expect(got.last == .message(bytes("m4999")))
        #expect(got == (0 ..< 5000).map { .message(bytes("m\($0)")) })
        #expect(decoder.pendingByteCount == 9)
        decoder.append(bytes("2[E];"))
        #expect(decoder.next() == .message(bytes("tail:part2")))
        #expect(decoder.next() == nil)
    }

    @Test func interleavedAppendAndDrainAcrossCompaction() {
        // Messages that straddle chunk boundaries while the buffer compacts.
        var stream: [UInt8] = []
        for index in 0 ..< 3000 { stream += bytes("message-\(index)[E];") }
        var chunks: [[UInt8]] = []
        var offset = 0
        var size = 1
        while offset < stream.count {
            let end = min(stream.count, offset + size)
            chunks.append(Array(stream[offset ..< end]))
            offset = end
            size = size % 997 + 7
        }
        #expect(events(chunks) == (0 ..< 3000).map { .message(bytes("message-\($0)")) })
    }
}
