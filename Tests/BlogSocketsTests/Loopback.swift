import BlogSockets
#if canImport(Glibc)
import Glibc
#endif

/// A connected pair on 127.0.0.1: `client` connected to `listener`, and
/// `server`, the accepted end. All non-blocking. Close with `close()`.
struct Loopback {
    /// How long a test waits for something that should happen at once:
    /// only a guard against hanging when it does not.
    static let patience = 10.0

    let listener: ListeningSocket
    let client: Socket
    let server: Socket
    /// The client's address, as the listener saw it.
    let clientAddress: SocketAddress

    init() throws {
        listener = try ListeningSocket.bind(host: "127.0.0.1", port: 0)[0]
        client = try Socket.connect(to: listener.address, until: Deadline(seconds: Self.patience))
        (server, clientAddress) = try Self.accept(on: listener.socket)
    }

    /// The next connection waiting on `listener`, once there is one.
    static func accept(on listener: Socket) throws -> (Socket, SocketAddress) {
        let deadline = Deadline(seconds: patience)
        while true {
            if case .done(let accepted) = try listener.accept() { return accepted }
            guard listener.wait(for: Int16(POLLIN), until: deadline) != nil else { throw Timeout() }
        }
    }

    func close() {
        client.close()
        server.close()
        listener.socket.close()
    }

    struct Timeout: Error {}
}

extension Socket {
    /// Receives until `count` bytes came or the stream ended.
    func receive(count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let chunk = try receiveOnce(limit: count - bytes.count)
            if chunk.isEmpty { break }
            bytes += chunk
        }
        return bytes
    }

    /// One receive once something is readable: the bytes, empty at the end
    /// of the stream.
    func receiveOnce(limit: Int = 4096) throws -> [UInt8] {
        let deadline = Deadline(seconds: Loopback.patience)
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let result = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SocketError) in try receive(into: raw) }
            }
            switch try result.get() {
            case .done(let count): return Array(buffer[0..<count])
            case .wouldBlock:
                guard wait(for: Int16(POLLIN), until: deadline) != nil else { throw Loopback.Timeout() }
            }
        }
    }
}
