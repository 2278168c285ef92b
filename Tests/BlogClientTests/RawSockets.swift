import BlogSockets
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain listening TCP socket on 127.0.0.1 (or ::1) at a free port.
/// It accepts nothing by itself.
final class RawListener: @unchecked Sendable {
    let socket: Socket
    let port: Int
    private var isClosed = false

    init(ipv6: Bool = false, backlog: Int32 = 16) {
        do {
            let listener = try ListeningSocket.bind(host: ipv6 ? "::1" : "127.0.0.1", port: 0, backlog: backlog)[0]
            socket = listener.socket
            port = listener.port
        } catch {
            preconditionFailure("cannot listen: \(error)")
        }
    }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        socket.close()
    }
}

/// A port on 127.0.0.1 where nothing listens: bound, read and closed.
func unusedPort() -> Int {
    RawListener().port
}

/// A fake server for one connection, on a thread of its own: accepts,
/// reads up to the end of one message, sends `reply` as given (maybe not
/// a valid reply, maybe nothing) and closes.
final class ScriptedServer: @unchecked Sendable {
    private let listener = RawListener()
    private let done = DispatchSemaphore(value: 0)
    /// What the client sent, once `finish()` returned.
    private(set) var received: [UInt8] = []

    var port: Int { listener.port }

    init(reply: String) {
        let socket = listener.socket
        let reply = Array(reply.utf8)
        let thread = Thread { [self] in
            defer { done.signal() }
            guard socket.wait(for: Int16(POLLIN), until: Deadline(seconds: 5)) != nil,
                  case .done(let (peer, _))? = try? socket.accept() else { return }
            defer { peer.close() }
            try? peer.setBlocking(true)
            try? peer.setTimeouts(seconds: 5)
            var chunk = [UInt8](repeating: 0, count: 4096)
            var got: [UInt8] = []
            while !got.suffix(4).elementsEqual(Array("[E];".utf8)) {
                let result = chunk.withUnsafeMutableBytes { raw in
                    Result { () throws(SocketError) in try peer.receive(into: raw) }
                }
                guard case .success(.done(let count)) = result, count > 0 else { break }
                got += chunk[0..<count]
            }
            received = got
            if !reply.isEmpty {
                try? peer.sendAll(reply, until: Deadline(seconds: 5))
            }
        }
        thread.start()
    }

    private var isFinished = false

    /// Waits for the thread to finish (at most 10 s), then closes. Only
    /// the first call waits.
    func finish() {
        guard !isFinished else { return }
        isFinished = true
        _ = done.wait(timeout: .now() + 10)
        listener.close()
    }
}

/// Seconds `body` took.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = Date()
    try body()
    return Date().timeIntervalSince(start)
}
