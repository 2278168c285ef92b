import BlogSockets
#if canImport(Glibc)
import Glibc
#endif

extension Socket {
    /// Reads a non-blocking socket until the peer closes, within `deadline`,
    /// and returns every byte that came.
    ///
    /// At most `limit` bytes are kept: the replies churn expects are a few
    /// dozen bytes, so a server that keeps talking shows as an unexpected
    /// reply instead of growing this client without bound.
    func receiveUntilClosed(until deadline: Deadline, limit: Int = 64 * 1024) throws(SocketError) -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while received.count < limit {
            let result = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SocketError) in try receive(into: raw) }
            }
            switch try result.get() {
            case .done(0):
                return received
            case .done(let count):
                received += chunk[0..<count]
            case .wouldBlock:
                guard wait(for: Int16(POLLIN), until: deadline) != nil else { throw .timedOut(call: "recv") }
            }
        }
        return received
    }
}
