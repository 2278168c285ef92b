import BlogSockets
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Real sockets on 127.0.0.1, on ports the system picks.
@Suite struct SocketTests {
    @Test func bindToPortZeroGetsARealPort() throws {
        let listeners = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        defer { listeners.forEach { $0.socket.close() } }
        #expect(listeners.count == 1)
        let listener = try #require(listeners.first)
        #expect(listener.port > 0)
        #expect(listener.address.host == "127.0.0.1")
        #expect(try listener.socket.localAddress() == listener.address)
    }

    @Test func secondBindOnTheSamePortIsInUse() throws {
        let first = try ListeningSocket.bind(host: "127.0.0.1", port: 0)[0]
        defer { first.socket.close() }
        #expect(throws: SocketError.system(call: "bind", errno: EADDRINUSE, address: "127.0.0.1:\(first.port)")) {
            try ListeningSocket.bind(host: "127.0.0.1", port: first.port)
        }
    }

    /// The server sets TCP_NODELAY once, on the listener, and relies on
    /// Linux handing it down to every accepted socket.
    @Test func acceptedSocketsInheritNoDelayFromTheListener() throws {
        let pair = try Loopback()
        defer { pair.close() }
        let listenerNoDelay: Int32 = try pair.listener.socket.option(Int32(IPPROTO_TCP), TCP_NODELAY)
        let acceptedNoDelay: Int32 = try pair.server.option(Int32(IPPROTO_TCP), TCP_NODELAY)
        #expect(listenerNoDelay != 0)
        #expect(acceptedNoDelay != 0)
    }

    @Test func connectWhereNothingListensIsRefused() throws {
        let closed = try ListeningSocket.bind(host: "127.0.0.1", port: 0)[0]
        closed.socket.close()
        #expect(throws: SocketError.system(call: "connect", errno: ECONNREFUSED, address: closed.address.description)) {
            try Socket.connect(to: closed.address, until: Deadline(seconds: Loopback.patience))
        }
    }

    @Test func acceptWouldBlockUntilAClientConnects() throws {
        let listener = try ListeningSocket.bind(host: "127.0.0.1", port: 0)[0]
        defer { listener.socket.close() }
        guard case .wouldBlock = try listener.socket.accept() else {
            Issue.record("accept returned a connection nobody made")
            return
        }
        let client = try Socket.connect(to: listener.address, until: Deadline(seconds: Loopback.patience))
        defer { client.close() }
        let (server, peer) = try Loopback.accept(on: listener.socket)
        defer { server.close() }
        #expect(peer == (try client.localAddress()))
        #expect(peer.host == "127.0.0.1")
    }

    @Test func connectFromASourceAddress() throws {
        let listener = try ListeningSocket.bind(host: "127.0.0.1", port: 0)[0]
        defer { listener.socket.close() }
        let source = try SocketAddress(ip: "127.0.0.1", port: 0)
        let client = try Socket.connect(to: listener.address, from: source, until: Deadline(seconds: Loopback.patience))
        defer { client.close() }
        let (server, peer) = try Loopback.accept(on: listener.socket)
        defer { server.close() }
        #expect(peer == (try client.localAddress()))
    }

    @Test func sendAllAndReceiveRoundTrip() throws {
        let pair = try Loopback()
        defer { pair.close() }
        // More than the socket buffers hold, so sendAll has to wait for the
        // reader: it runs on a thread of its own.
        let message = (0..<4_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let client = pair.client
        let sent = DispatchSemaphore(value: 0)
        // Runs before the pair is closed, so the thread is never left
        // sending on a closed descriptor.
        defer { _ = sent.wait(timeout: .now() + Loopback.patience) }
        Thread {
            try? client.sendAll(message, until: Deadline(seconds: Loopback.patience))
            sent.signal()
        }.start()
        #expect(try pair.server.receive(count: message.count) == message)
        try pair.server.sendAll(Array("reg:OK[E];".utf8))
        #expect(try pair.client.receive(count: 10) == Array("reg:OK[E];".utf8))
    }

    @Test func shutdownWriteGivesThePeerEndOfStream() throws {
        let pair = try Loopback()
        defer { pair.close() }
        try pair.client.sendAll(Array("login:a:b[E];".utf8))
        pair.client.shutdownWrite()
        #expect(try pair.server.receive(count: 100) == Array("login:a:b[E];".utf8))
        #expect(try pair.server.receiveOnce() == [])
        // Only one half is closed: the reply still comes through.
        try pair.server.sendAll(Array("log:NA[E];".utf8))
        #expect(try pair.client.receive(count: 10) == Array("log:NA[E];".utf8))
    }

    @Test func resetOnCloseGivesThePeerConnectionReset() throws {
        let pair = try Loopback()
        defer { pair.server.close(); pair.listener.socket.close() }
        try pair.client.setResetOnClose()
        pair.client.close()
        #expect(throws: SocketError.system(call: "recv", errno: ECONNRESET)) {
            try pair.server.receiveOnce()
        }
    }

    @Test func blockingSocketWithTimeoutsStillWorks() throws {
        let pair = try Loopback()
        defer { pair.close() }
        try pair.client.setBlocking(true)
        try pair.client.setTimeouts(seconds: Loopback.patience)
        try pair.client.setNoDelay()
        try pair.server.sendAll(Array("err:CMD[E];".utf8))
        #expect(try pair.client.receive(count: 11) == Array("err:CMD[E];".utf8))
    }
}
