import BlogCore
import BlogServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Starting (and failing to start) and the graceful stop.
@Suite("Start and stop")
struct ShutdownTests {
    /// Stops the server on a thread of its own; `result` waits for it.
    final class Stopper: Sendable {
        private let outcome = Locked<Bool?>(nil)
        private let work: Background

        init(_ server: BlogServer, timeout: Double = 120) {
            let outcome = outcome
            work = Background { outcome.withLock { $0 = server.stop(timeout: timeout) } }
        }

        /// What `stop` returned, or nil if it did not return in time.
        func result(within seconds: Double = 180) -> Bool? {
            work.wait(timeout: seconds) ? outcome.value : nil
        }
    }

    /// Opens a connection and waits until the server has taken it.
    private func accepted(_ f: ServerFixture, count: Int = 1) throws -> TestClient {
        let client = try f.client()
        #expect(eventually { f.server.connectionCount == count })
        return client
    }

    /// In either connection mode: the request is answered, then the
    /// connection closes (with keep-alive, no more messages are taken).
    @Test(arguments: [false, true])
    func requestInFlightIsAnsweredDuringStop(keepAlive: Bool) throws {
        // Real scrypt cost, so the request is still being handled at stop.
        let f = try ServerFixture(settings: .init(scrypt: .standard)) { $0.connection.keepAlive = keepAlive }
        defer { f.tearDown() }
        let client = try accepted(f)
        try client.send("register:Inflight:pw[E];")
        Thread.sleep(forTimeInterval: 0.05)
        let stopper = Stopper(f.server)
        #expect(try client.readReply() == "reg:OK[E];")
        #expect(client.expectCleanEOF() == .eof)
        client.close()
        #expect(stopper.result() == true)
        #expect(try f.store.user(named: "Inflight") != nil)
    }

    /// Requests that reached the server before `stop` are answered, even the
    /// ones it had not read yet when `stop` began. Several rounds, since
    /// whether the server has read a request yet is a matter of scheduling.
    @Test func everyRequestSentBeforeStopIsAnswered() throws {
        let rounds = 6
        let count = 32
        var lost: [String] = []
        for round in 1...rounds {
            let f = try ServerFixture()
            defer { f.tearDown() }
            let clients = try (0..<count).map { _ in try f.client() }
            // Every connection is taken and idle before the requests go out.
            #expect(eventually { f.server.connectionCount == count })
            for (index, client) in clients.enumerated() {
                try client.send("login:nobody\(index):pw[E];")
            }
            let stopper = Stopper(f.server)
            var unanswered: [String] = []
            for client in clients {
                let (reply, end) = client.readToEnd()
                if reply != "log:NA[E];" { unanswered.append("\(reply.debugDescription) \(end)") }
                client.close()
            }
            #expect(stopper.result() == true)
            if !unanswered.isEmpty {
                lost.append("round \(round): \(unanswered.count) of \(count) unanswered, first got \(unanswered[0])")
            }
        }
        #expect(lost.isEmpty, "requests sent before stop() lost: \(lost)")
    }

    @Test(arguments: [false, true])
    func stopClosesIdleConnections(keepAlive: Bool) throws {
        let f = try ServerFixture {
            $0.connection.readTimeout = 30
            $0.connection.keepAlive = keepAlive
        }
        defer { f.tearDown() }
        let idle = try accepted(f)
        let talked = try f.client()
        #expect(eventually { f.server.connectionCount == 2 })
        if keepAlive {
            try talked.send("login:a:b[E];")
            #expect(try talked.readReply() == "log:NA[E];")
        }
        let stopper = Stopper(f.server)
        // Closed without a reply (no err:TIME: they did nothing wrong).
        #expect(idle.expectCleanEOF() == .eof)
        #expect(talked.expectCleanEOF() == .eof)
        idle.close()
        talked.close()
        #expect(stopper.result() == true)
        #expect(f.server.connectionCount == 0)
    }

    @Test func stopReturnsFalseWhenAPeerOutlastsTheTimeout() throws {
        let f = try ServerFixture { $0.connection.lingerTimeout = 5 }
        defer { f.tearDown() }
        let stubborn = try accepted(f)
        // It never closes its side: the server waits up to the linger time.
        #expect(f.server.stop(timeout: 0.3) == false)
        #expect(stubborn.expectCleanEOF() == .eof)
        stubborn.close()
        #expect(eventually { f.server.connectionCount == 0 })
        #expect(f.server.stop(timeout: 60) == true)
    }

    @Test func newConnectionsAreRefusedAfterStop() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(try f.ask("register:Before:pw[E];") == "reg:OK[E];")
        let port = f.port
        #expect(f.server.stop() == true)
        // Refused, or at most accepted by the kernel and closed unanswered.
        for _ in 0..<3 {
            do {
                let client = try TestClient(port: port, timeout: 60)
                try? client.send("register:After:pw[E];")
                let (reply, end) = client.readToEnd()
                #expect(reply == "")
                #expect(end != .timedOut)
            } catch ClientError.connect(let code) {
                #expect(code == ECONNREFUSED)
            }
        }
        #expect(try f.store.user(named: "After") == nil)
    }

    @Test func stopWithoutConnectionsReturnsTrueAndTwiceIsHarmless() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(f.server.stop(timeout: 60) == true)
        #expect(f.server.stop(timeout: 60) == true)
    }

    @Test func startFailsOnAPortInUse() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        var options = BlogServer.Options()
        options.host = "127.0.0.1"
        options.port = f.port
        let second = BlogServer(service: f.service, options: options)
        let error = #expect(throws: ServerError.self) { try second.start() }
        if case .cannotListen(.system(let call, let code, _))? = error {
            #expect(call == "bind")
            #expect(code == EADDRINUSE)
        } else {
            Issue.record("expected a bind failure, got \(String(describing: error))")
        }
        // The first one is unharmed.
        #expect(try f.ask("register:Still:pw[E];") == "reg:OK[E];")
    }

    @Test func startFailsOnAnUnknownHost() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        var options = BlogServer.Options()
        options.host = "no-such-host.invalid"
        options.port = 0
        let server = BlogServer(service: f.service, options: options)
        let error = #expect(throws: ServerError.self) { try server.start() }
        if case .cannotListen(.cannotResolve(let host, _, _))? = error {
            #expect(host == "no-such-host.invalid")
        } else {
            Issue.record("expected cannotResolve, got \(String(describing: error))")
        }
    }

    @Test func portZeroPicksARealPort() throws {
        let f = try ServerFixture()
        defer { f.tearDown() }
        #expect(f.port > 0)
        #expect(f.port != 51515)
    }
}
