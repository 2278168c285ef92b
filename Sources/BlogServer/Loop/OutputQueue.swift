import BlogWire

/// Reply bytes waiting to be written to one socket, oldest first.
struct OutputQueue {
    private var bytes: [UInt8] = []
    /// Start of the unwritten bytes; written ones are dropped lazily so a
    /// run of short writes costs linear time.
    private var start = 0

    var isEmpty: Bool { start == bytes.count }
    var count: Int { bytes.count - start }

    mutating func append(_ reply: Reply) {
        bytes.append(contentsOf: reply.bytes)
    }

    mutating func append(_ reply: [UInt8]) {
        bytes.append(contentsOf: reply)
    }

    /// Calls `body` with the unwritten bytes.
    func withUnwritten<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
    }

    /// Drops the first `count` unwritten bytes.
    mutating func consume(_ count: Int) {
        start += count
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= 4096)
            start = 0
        } else if start > 4096 && start * 2 > bytes.count {
            bytes.removeFirst(start)
            start = 0
        }
    }
}
