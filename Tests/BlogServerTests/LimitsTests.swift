import BlogCore
import BlogServer
import Foundation
import Testing

/// err:SIZE, err:TIME and err:BUSY: the limits a peer can run into.
@Suite("Limits")
struct LimitsTests {
    // MARK: err:SIZE

    @Test func oversizedRegisterIsRefusedAndNotStored() throws {
        let f = try ServerFixture { $0.connection.maxMessageBytes = 1024 }
        defer { f.tearDown() }
        let (reply, end) = try f.exchange("register:Big:\(String(repeating: "p", count: 2000))[E];")
        #expect(reply == "err:SIZE[E];")
        #expect(end == .eof)
        #expect(try f.store.user(named: "Big") == nil)
        #expect(f.page(of: "Big") == nil)
    }

    @Test func oversizedPostIsRefusedAndNotStored() throws {
        let f = try ServerFixture { $0.connection.maxMessageBytes = 1024 }
        defer { f.tearDown() }
        try f.registerAndLogin("Poster")
        let pageBefore = f.page(of: "Poster")
        let (reply, end) = try f.exchange("newpost:Poster:Long:\(String(repeating: "c", count: 5000))[E];")
        #expect(reply == "err:SIZE[E];")
        #expect(end == .eof)
        #expect(try f.postCount(of: "Poster") == 0)
        #expect(f.page(of: "Poster") == pageBefore)
    }

    @Test func messageExactlyAtTheLimitIsAcceptedOneMoreIsNot() throws {
        let limit = 1024
        let f = try ServerFixture { $0.connection.maxMessageBytes = limit }
        defer { f.tearDown() }
        try f.registerAndLogin("Edge")
        let head = "newpost:Edge:Edge:"
        let fits = head + String(repeating: "c", count: limit - head.utf8.count)
        #expect(fits.utf8.count == limit)
        #expect(try f.ask(fits + "[E];") == "post:OK[E];")
        #expect(try f.ask(fits + "c[E];") == "err:SIZE[E];")
        #expect(try f.postCount(of: "Edge") == 1)
    }

    @Test func leadingWhitespaceDoesNotCountTowardsTheLimit() throws {
        let limit = 256
        let f = try ServerFixture { $0.connection.maxMessageBytes = limit }
        defer { f.tearDown() }
        let message = "register:Ws:" + String(repeating: "p", count: 200)
        #expect(try f.ask(String(repeating: "\n", count: 400) + message + "[E];") == "reg:OK[E];")
    }

    /// A peer that sends endlessly without a terminator is cut off once it
    /// passes the limit, without waiting for the read timeout.
    @Test func oversizedWithoutTerminatorIsRefusedAtOnce() throws {
        let f = try ServerFixture {
            $0.connection.maxMessageBytes = 1024
            $0.connection.readTimeout = 30
        }
        defer { f.tearDown() }
        let client = try f.client(timeout: 60)
        try client.send("register:Endless:" + String(repeating: "p", count: 4096))
        // The connection stays open on our side: the reply comes from the size.
        #expect(try client.readReply() == "err:SIZE[E];")
        #expect(client.expectCleanEOF() == .eof)
        #expect(try f.store.user(named: "Endless") == nil)
    }

    @Test func hugeStreamIsRefusedWithoutAReset() throws {
        let f = try ServerFixture { $0.connection.maxMessageBytes = 1024 }
        defer { f.tearDown() }
        let client = try f.client(timeout: 60)
        let flood = [UInt8](repeating: UInt8(ascii: "a"), count: 2_000_000)
        let sendError = Locked<String?>(nil)
        let sender = Background {
            do { try client.send(flood) } catch { sendError.withLock { $0 = "\(error)" } }
        }
        Thread.sleep(forTimeInterval: 0.2)
        let (reply, end) = client.readToEnd()
        #expect(reply == "err:SIZE[E];")
        #expect(end == .eof)
        // The rest is read and dropped, not answered with a reset.
        #expect(sender.wait())
        #expect(sendError.value == nil, "\(String(describing: sendError.value))")
        Thread.sleep(forTimeInterval: 0.1)
        #expect(throws: Never.self) { try client.send("more") }
        Thread.sleep(forTimeInterval: 0.1)
        #expect(client.readToEnd().end == .eof)
    }

    @Test func oversizedAfterAGoodMessageInKeepAlive() throws {
        let f = try ServerFixture {
            $0.connection.keepAlive = true
            $0.connection.maxMessageBytes = 512
        }
        defer { f.tearDown() }
        let client = try f.client()
        try client.send("register:Keep:pw[E];register:Huge:\(String(repeating: "x", count: 600))[E];register:Later:pw[E];")
        #expect(try client.readReply() == "reg:OK[E];")
        #expect(try client.readReply() == "err:SIZE[E];")
        #expect(client.expectCleanEOF() == .eof)
        #expect(try f.store.user(named: "Huge") == nil)
        #expect(try f.store.user(named: "Later") == nil, "the connection is closed after err:SIZE")
    }

    // MARK: err:TIME

    @Test func silentClientGetsErrTime() throws {
        let f = try ServerFixture { $0.connection.readTimeout = 0.5 }
        defer { f.tearDown() }
        let client = try f.acceptedClient()
        f.advance(by: 0.49)
        // Not yet: a message now is still taken (and, in this mode, ends it).
        let other = try f.acceptedClient()
        f.advance(by: 0.01)
        #expect(try client.readReply() == "err:TIME[E];")
        #expect(client.expectCleanEOF() == .eof)
        try other.send("login:a:b[E];")
        #expect(try other.readReply() == "log:NA[E];", "accepted 0.49 s in: its own timeout had not run out")
    }

    @Test func halfAMessageGetsErrTime() throws {
        let f = try ServerFixture { $0.connection.readTimeout = 0.5 }
        defer { f.tearDown() }
        let client = try f.acceptedClient()
        try client.send("register:Half:p")
        f.advance(by: 0.5)
        #expect(try client.readReply() == "err:TIME[E];")
        #expect(client.expectCleanEOF() == .eof)
        #expect(try f.store.user(named: "Half") == nil)
    }

    /// The read timeout bounds the whole message, so trickling bytes cannot
    /// hold a connection forever.
    @Test func tricklingClientGetsErrTime() throws {
        let f = try ServerFixture { $0.connection.readTimeout = 0.5 }
        defer { f.tearDown() }
        let client = try f.acceptedClient()
        // 40 bytes, 0.05 s apart on the server's clock: 2 s, far past the
        // timeout, but within the linger after it, so no send fails.
        for byte in Array("register:Trickle:\(String(repeating: "p", count: 23))".utf8) {
            try client.send([byte])
            f.advance(by: 0.05)
        }
        #expect(try client.readReply() == "err:TIME[E];")
        #expect(client.expectCleanEOF() == .eof)
        #expect(try f.store.user(named: "Trickle") == nil)
    }

    @Test func errTimeDoesNotStopOtherConnections() throws {
        let f = try ServerFixture { $0.connection.readTimeout = 0.5 }
        defer { f.tearDown() }
        let silent = try f.acceptedClient()
        f.advance(by: 0.5)
        #expect(try silent.readReply() == "err:TIME[E];")
        #expect(try f.ask("register:Alive:pw[E];") == "reg:OK[E];")
    }

    // MARK: err:BUSY

    /// Opens `count` connections and waits until the server has taken them;
    /// the fixture keeps them open until its tear-down.
    private func hold(_ count: Int, on f: ServerFixture) throws -> [TestClient] {
        let clients = try (0..<count).map { _ in try f.client() }
        #expect(eventually { f.server.connectionCount == count }, "server took \(f.server.connectionCount)")
        return clients
    }

    @Test func connectionOverTheLimitGetsErrBusy() throws {
        let f = try ServerFixture { $0.maxConnections = 2; $0.evictIdleAfter = nil }
        defer { f.tearDown() }
        let held = try hold(2, on: f)
        let third = try f.client()
        try third.send("register:Third:pw[E];")
        let (reply, end) = third.readToEnd()
        #expect(reply == "err:BUSY[E];")
        #expect(end == .eof)
        #expect(try f.store.user(named: "Third") == nil)
        // The held connections are still served.
        try held[0].send("register:Held:pw[E];")
        #expect(try held[0].readReply() == "reg:OK[E];")
    }

    @Test func connectionsAreServedAgainAfterTheHeldOnesClose() throws {
        let f = try ServerFixture { $0.maxConnections = 2; $0.evictIdleAfter = nil }
        defer { f.tearDown() }
        let held = try hold(2, on: f)
        let (busy, _) = try f.exchange("login:a:b[E];")
        #expect(busy == "err:BUSY[E];")
        held.forEach { $0.close() }
        #expect(eventually { f.server.connectionCount == 0 })
        #expect(try f.ask("register:Later:pw[E];") == "reg:OK[E];")
        #expect(try f.ask("login:Later:pw[E];") == "log:OK[E];")
    }

    /// A rejected connection, once closed, must not leave room for one more
    /// served connection than the limit.
    ///
    /// BlogServer.admit counts `state.rejecting` up for every err:BUSY
    /// connection but never down when it closes (`closed` only removes it
    /// from `connections`), so `served = connections.count - rejecting`
    /// undercounts from then on: each rejection raises the limit by one for
    /// good, and after `maxConnections` rejections no over-limit client gets
    /// an err:BUSY reply any more.
    @Test func closedRejectionsDoNotRaiseTheLimit() throws {
        let f = try ServerFixture { $0.maxConnections = 2; $0.evictIdleAfter = nil }
        defer { f.tearDown() }
        _ = try hold(2, on: f)
        for attempt in 1...3 {
            let client = try f.client()
            try client.send("login:a:b[E];")
            let (reply, end) = client.readToEnd()
            #expect(reply == "err:BUSY[E];", "attempt \(attempt) while 2 of 2 are held")
            #expect(end == .eof)
            client.close()
            #expect(eventually { f.server.connectionCount == 2 })
        }
    }

    @Test func manyConnectionsOverTheLimitAllGetErrBusyOrAreClosed() throws {
        let f = try ServerFixture { $0.maxConnections = 3; $0.evictIdleAfter = nil }
        defer { f.tearDown() }
        _ = try hold(3, on: f)
        let replies = Locked<[String]>([])
        let finished = runOnThreads(12, prepare: { _ in try? f.client() }) { _, client in
            guard let client else { return replies.withLock { $0.append("connect failed") } }
            try? client.send("login:a:b[E];")
            let (reply, _) = client.readToEnd()
            replies.withLock { $0.append(reply) }
        }
        #expect(finished)
        // No over-limit connection is served: err:BUSY, or closed without a reply.
        let served = replies.value.filter { $0 != "err:BUSY[E];" && $0 != "" }
        #expect(served.isEmpty, "\(served)")
    }
}
