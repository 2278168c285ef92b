import BlogSockets
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `Epoll` and `EventFD`: waking a loop from another thread.
@Suite struct EpollTests {
    @Test func eventFDSignalledFromAnotherThreadWakesWait() throws {
        let epoll = try Epoll()
        defer { epoll.close() }
        let wakeup = try EventFD()
        defer { wakeup.close() }
        try epoll.add(wakeup.fd, events: .readable, token: 42)
        var ready = Epoll.ReadyList(capacity: 4)

        Thread { wakeup.signal() }.start()
        try waitForEvents(epoll, &ready)
        #expect(ready.count == 1)
        #expect(ready[0].token == 42)
        #expect(ready[0].events.contains(.readable))

        // Level-triggered: still ready until drained, quiet after.
        try epoll.wait(into: &ready, timeoutMilliseconds: 0)
        #expect(ready.count == 1)
        wakeup.drain()
        try epoll.wait(into: &ready, timeoutMilliseconds: 0)
        #expect(ready.count == 0)
    }

    @Test func listenerIsReadableWhenAClientConnects() throws {
        let epoll = try Epoll()
        defer { epoll.close() }
        let listener = try ListeningSocket.bind(host: "127.0.0.1", port: 0)[0]
        defer { listener.socket.close() }
        try epoll.add(listener.socket.fd, events: .readable, token: 7)
        var ready = Epoll.ReadyList()
        try epoll.wait(into: &ready, timeoutMilliseconds: 0)
        #expect(ready.count == 0)

        let client = try Socket.connect(to: listener.address, until: Deadline(seconds: Loopback.patience))
        defer { client.close() }
        try waitForEvents(epoll, &ready)
        #expect(ready.count == 1)
        #expect(ready[0].token == 7)
        guard case .done(let (server, _)) = try listener.socket.accept() else {
            Issue.record("readable, yet no connection to accept")
            return
        }
        server.close()
        // Nothing more waits: quiet again.
        try epoll.wait(into: &ready, timeoutMilliseconds: 0)
        #expect(ready.count == 0)
    }

    /// Waits until `epoll` reports something; a signal may end one wait
    /// early with nothing, so it waits again.
    private func waitForEvents(_ epoll: Epoll, _ ready: inout Epoll.ReadyList) throws {
        let deadline = Deadline(seconds: Loopback.patience)
        repeat {
            try epoll.wait(into: &ready, timeoutMilliseconds: deadline.remainingMilliseconds)
        } while ready.count == 0 && !deadline.hasPassed
    }
}
