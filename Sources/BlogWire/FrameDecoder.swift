/// Splits a byte stream into messages ending in `[E];`.
///
/// Bytes arrive in any chunking (one at a time, or many messages at once);
/// the decoder buffers what it must and hands out each complete message body
/// without its terminator. It never holds more than the size limit plus the
/// terminator of an unfinished message, so a hostile peer cannot make it
/// grow without bound.
public struct FrameDecoder: Sendable {
    /// One thing the decoder found in the stream.
    public enum Event: Equatable, Sendable {
        /// A complete message body, terminator removed.
        case message([UInt8])
        /// A message went past the size limit without a terminator.
        case oversized
    }

    public let maxMessageBytes: Int
    private var buffer: [UInt8] = []
    /// Start of the unconsumed bytes; consumed ones are compacted lazily so
    /// that many pipelined messages cost linear time, not quadratic.
    private var start = 0
    /// Where the terminator search resumes, so re-scans stay linear.
    private var scanned = 0
    private var failed = false

    public init(maxMessageBytes: Int = Frame.defaultMaxMessageBytes) {
        precondition(maxMessageBytes > 0)
        self.maxMessageBytes = maxMessageBytes
    }

    /// Bytes received but not yet handed out, leading whitespace excluded.
    public var pendingByteCount: Int { buffer.count - start }

    /// Whether part of a message has arrived but not its terminator.
    public var hasPartialMessage: Bool { pendingByteCount > 0 }

    /// Whether the stream went past the size limit (it is dead from then on).
    public var isOversized: Bool { failed }

    /// Appends bytes received from the peer.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        guard done == nil, !failed else { return }
        for byte in bytes {
            if start == buffer.count && Frame.isSkippableWhitespace(byte) { continue }
            buffer.append(byte)
        }
    }

    /// Appends bytes received from the peer, straight from a read buffer.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !failed else { return }
        var from = 0
        // Whitespace before a message is skipped, not held.
        if start == buffer.count {
            while from < bytes.count && Frame.isSkippableWhitespace(bytes[from]) { from += 1 }
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[from...]))
    }

    /// Returns the next complete message, `.oversized` once the limit is
    /// passed (after which the stream is dead), or `nil` when more bytes are
    /// needed.
    public mutating func next() -> Event? {
        guard !failed else { return nil }
        let t = Frame.terminator
        var index = max(scanned, start)
        while index + t.count <= buffer.count {
            if buffer[index] == t[0], buffer[index + 1] == t[1],
               buffer[index + 2] == t[2], buffer[index + 3] == t[3] {
                guard index - start <= maxMessageBytes else { return fail() }
                let body = Array(buffer[start..<index])
                start = index + t.count
                while start < buffer.count, Frame.isSkippableWhitespace(buffer[start]) { start += 1 }
                scanned = start
                compact()
                return .message(body)
            }
            index += 1
        }
        // A terminator may straddle the next read: re-check the last 3 bytes.
        scanned = max(start, buffer.count - (t.count - 1))
        if pendingByteCount > maxMessageBytes + t.count - 1 { return fail() }
        return nil
    }

    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 16)
            start = 0
            scanned = 0
        } else if start > 4096 && start * 2 > buffer.count {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
    }

    private mutating func fail() -> Event {
        failed = true
        buffer = []
        start = 0
        scanned = 0
        return .oversized
    }
}
