import BlogClient
import BlogCore
import Foundation
import Testing

/// The errors `BlogClient` throws when there is no sensible reply.
@Suite struct TransportErrorTests {
    @Test func nothingListeningIsConnectionRefused() throws {
        let port = unusedPort()
        let client = BlogClient(host: "127.0.0.1", port: port, timeout: 2)
        #expect(throws: BlogClientError.connectionRefused(host: "127.0.0.1", port: port)) {
            try client.register(user: "alice", password: "pw")
        }
        // localhost may stand for ::1 and 127.0.0.1: every address refuses.
        #expect(throws: BlogClientError.connectionRefused(host: "localhost", port: port)) {
            try BlogClient(host: "localhost", port: port, timeout: 2).login(user: "alice", password: "pw")
        }
    }

    @Test func unknownHostCannotBeResolved() throws {
        let client = BlogClient(host: "no-such-host.invalid", port: 51515, timeout: 2)
        #expect {
            try client.login(user: "alice", password: "pw")
        } throws: { error in
            guard case .cannotResolve(let host, _) = error as? BlogClientError else { return false }
            return host == "no-such-host.invalid"
        }
    }

    @Test func serverThatNeverAnswersTimesOut() throws {
        let listener = RawListener()
        defer { listener.close() }
        let client = BlogClient(host: "127.0.0.1", port: listener.port, timeout: 0.3)
        let took = seconds {
            #expect(throws: BlogClientError.timedOut(.awaitingReply)) {
                try client.register(user: "alice", password: "pw")
            }
        }
        // Not before the timeout; how long after is the machine's business.
        #expect(took >= 0.25)
    }

    @Test func fullBacklogTimesOutConnecting() throws {
        // A listen backlog of 0 holds one connection; later handshakes are
        // dropped, so connect hangs until the timeout.
        let listener = RawListener(backlog: 0)
        defer { listener.close() }
        var held: [BlogConnection] = []
        defer { held.forEach { $0.close() } }
        var outcome: BlogClientError?
        for _ in 0..<4 where outcome == nil {
            do {
                held.append(try BlogConnection(host: "127.0.0.1", port: listener.port, timeout: 0.3))
            } catch {
                outcome = error
            }
        }
        #expect(outcome == .timedOut(.connecting))
    }

    @Test func serverThatHangsUpIsClosedWithoutReply() throws {
        let fake = ScriptedServer(reply: "")
        defer { fake.finish() }
        let client = BlogClient(host: "127.0.0.1", port: fake.port, timeout: 60)
        #expect(throws: BlogClientError.closedWithoutReply(partial: "")) {
            try client.login(user: "alice", password: "pw")
        }
        fake.finish()
        #expect(fake.received == Array("login:alice:pw[E];".utf8))
    }

    @Test func replyCutShortIsClosedWithoutReply() throws {
        let fake = ScriptedServer(reply: "log:O")
        defer { fake.finish() }
        #expect(throws: BlogClientError.closedWithoutReply(partial: "log:O")) {
            try BlogClient(host: "127.0.0.1", port: fake.port, timeout: 60).login(user: "alice", password: "pw")
        }
    }

    @Test func unknownReplyTextIsUnexpected() throws {
        let fake = ScriptedServer(reply: "hello there[E];")
        defer { fake.finish() }
        #expect(throws: BlogClientError.unexpectedReply("hello there")) {
            try BlogClient(host: "127.0.0.1", port: fake.port, timeout: 60).register(user: "alice", password: "pw")
        }
    }

    @Test func replyOfAnotherCommandIsUnexpected() throws {
        let fake = ScriptedServer(reply: "log:OK[E];")
        defer { fake.finish() }
        #expect(throws: BlogClientError.unexpectedReply("log:OK")) {
            try BlogClient(host: "127.0.0.1", port: fake.port, timeout: 60).register(user: "alice", password: "pw")
        }
    }

    @Test func invalidArgumentsAreRefusedBeforeConnecting() throws {
        // Nothing listens: an attempt to connect would be refused.
        let client = BlogClient(host: "127.0.0.1", port: unusedPort(), timeout: 2)
        #expect(throws: BlogClientError.invalidArgument(.field(.usernameCharacters))) {
            try client.register(user: "bad name", password: "pw")
        }
        #expect(throws: BlogClientError.invalidArgument(.field(.emptyPassword))) {
            try client.login(user: "alice", password: "")
        }
        #expect(throws: BlogClientError.invalidArgument(.colonInTitle)) {
            try client.post(user: "alice", title: "a:b", content: "text")
        }
    }

    @Test func secondMessageWithoutKeepAliveIsClosedWithoutReply() throws {
        // The server answers one message per connection, then closes.
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        let connection = try BlogConnection(host: "127.0.0.1", port: fixture.port, timeout: 60)
        defer { connection.close() }
        #expect(try connection.send(.registering(user: "alice", password: "pw")) == .registered)
        #expect(throws: BlogClientError.closedWithoutReply(partial: "")) {
            try connection.send(.loggingIn(user: "alice", password: "pw"))
        }
    }

    @Test func errorsSayWhetherTheServerWasReached() {
        #expect(BlogClientError.connectionRefused(host: "h", port: 1).isConnectionFailure)
        #expect(BlogClientError.timedOut(.awaitingReply).isConnectionFailure)
        #expect(BlogClientError.closedWithoutReply(partial: "").isConnectionFailure)
        #expect(!BlogClientError.unexpectedReply("x").isConnectionFailure)
        #expect(!BlogClientError.invalidArgument(.colonInTitle).isConnectionFailure)
        #expect(BlogClientError.connectionRefused(host: "::1", port: 7).description
            == "cannot connect to [::1]:7: connection refused")
    }
}
