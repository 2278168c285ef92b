import BlogSockets
#if canImport(Glibc)
import Glibc
#endif

/// The single non-blocking steps `BlogConnection` builds on, in the terms
/// it acts on: for a client, every failure of an established connection
/// means the server is gone.
extension Socket {
    /// How one non-blocking receive ended.
    enum Received {
        case bytes([UInt8])
        /// Nothing to read right now.
        case wouldBlock
        /// The peer closed its side (EOF) or reset the connection.
        case closed
    }

    /// How one non-blocking send ended.
    enum Sent {
        case bytes(Int)
        /// The send buffer is full right now.
        case wouldBlock
        /// The peer is gone (reset, or closed for reading).
        case closed
    }

    /// One receive of whatever is there, at most `limit` bytes.
    func receiveChunk(limit: Int = 4096) -> Received {
        var chunk = [UInt8](repeating: 0, count: limit)
        let result = chunk.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in try receive(into: raw) }
        }
        switch result {
        case .success(.done(0)), .failure: return .closed
        case .success(.done(let count)): return .bytes(Array(chunk[0..<count]))
        case .success(.wouldBlock): return .wouldBlock
        }
    }

    /// One send of as much of `bytes` as fits.
    func sendSome(_ bytes: ArraySlice<UInt8>) -> Sent {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(SocketError) in try send(raw) }
        }
        switch result {
        case .success(.done(let count)): return .bytes(count)
        case .success(.wouldBlock): return .wouldBlock
        case .failure: return .closed
        }
    }

    /// Waits until bytes (or the end of the stream, or an error) can be
    /// read; false when the deadline passed first.
    func waitReadable(until deadline: Deadline) -> Bool {
        wait(for: Int16(POLLIN), until: deadline) != nil
    }

    /// Waits until the socket can be read (bytes, end, error) or written;
    /// `nil` when the deadline passed first.
    func waitReadableOrWritable(until deadline: Deadline) -> (readable: Bool, writable: Bool)? {
        guard let events = wait(for: Int16(POLLIN | POLLOUT), until: deadline) else { return nil }
        return (events & Int16(POLLIN | POLLHUP | POLLERR) != 0, events & Int16(POLLOUT) != 0)
    }
}
