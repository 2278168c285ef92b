import BlogClient
import BlogCore
import Foundation
import Testing
import BlogWire

/// Every `BlogReply` the client can return, against a real server.
@Suite struct ClientReplyTests {
    @Test func registerLoginAndPostAreOK() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        let client = fixture.client()
        #expect(try client.register(user: "alice", password: "s3cret:with:colons") == .ok)
        #expect(try client.login(user: "alice", password: "s3cret:with:colons") == .ok)
        #expect(try client.post(user: "alice", title: "Hello", content: "First line.\nSecond: line.") == .ok)
        let page = try #require(fixture.page(of: "alice"))
        #expect(page.contains("Hello"))
        #expect(page.contains("Second: line."))
    }

    @Test func registeringATakenNameInAnyCaseIsTaken() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        let client = fixture.client()
        #expect(try client.register(user: "Bob", password: "pw") == .ok)
        #expect(try client.register(user: "Bob", password: "other") == .taken)
        #expect(try client.register(user: "bob", password: "other") == .taken)
    }

    @Test func wrongPasswordOrUnknownNameIsRejected() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        let client = fixture.client()
        #expect(try client.register(user: "carol", password: "right") == .ok)
        #expect(try client.login(user: "carol", password: "wrong") == .rejected)
        #expect(try client.login(user: "nobody", password: "right") == .rejected)
    }

    @Test func postWithoutLoginOrForUnknownUserIsRejected() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        try fixture.createUserDirectly("dave")
        let client = fixture.client()
        #expect(try client.post(user: "dave", title: "Forged", content: "nope") == .rejected)
        #expect(try client.post(user: "ghost", title: "Forged", content: "nope") == .rejected)
        #expect(fixture.page(of: "dave") == nil)
    }

    @Test func pageFailureOnRegisterIsServerError() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        try fixture.breakPages()
        #expect(try fixture.client().register(user: "erin", password: "pw") == .serverError)
    }

    @Test func pageFailureOnPostIsServerError() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        let client = fixture.client()
        #expect(try client.register(user: "frank", password: "pw") == .ok)
        #expect(try client.login(user: "frank", password: "pw") == .ok)
        try fixture.breakPages()
        #expect(try client.post(user: "frank", title: "Lost", content: "page gone") == .serverError)
    }

    @Test func messageOverTheServersLimitIsTooLarge() throws {
        let fixture = try TestServer { $0.connection.maxMessageBytes = 100 }
        defer { fixture.shutdown() }
        let content = String(repeating: "x", count: 500)
        #expect(try fixture.client().post(user: "gina", title: "Big", content: content) == .tooLarge)
    }

    @Test func hugeMessageGetsTheEarlyTooLargeReply() throws {
        // Over the default 64 KiB: the server answers before reading it all;
        // the client stops sending and reads the reply.
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        let content = String(repeating: "y", count: 2_000_000)
        #expect(try fixture.client().post(user: "gina", title: "Huge", content: content) == .tooLarge)
    }

    @Test func connectionLimitReachedIsBusy() throws {
        let fixture = try TestServer { $0.maxConnections = 1; $0.evictIdleAfter = nil }
        defer { fixture.shutdown() }
        let idle = try BlogConnection(host: "127.0.0.1", port: fixture.port, timeout: 60)
        defer { idle.close() }
        #expect(eventually { fixture.server.connectionCount == 1 })
        #expect(try fixture.client().register(user: "hank", password: "pw") == .busy)
    }

    @Test func incompleteMessageIsTimedOut() throws {
        let fixture = try TestServer { $0.connection.readTimeout = 0.3 }
        defer { fixture.shutdown() }
        let connection = try BlogConnection(host: "127.0.0.1", port: fixture.port, timeout: 60)
        defer { connection.close() }
        try connection.write(Array("login:ivy:pass".utf8))
        #expect(eventually { fixture.server.connectionCount == 1 })
        fixture.clock.advance(by: 0.3)
        let reply = try connection.readReply()
        #expect(reply == .timedOut)
        #expect(BlogReply(reply) == .timedOut)
        #expect(BlogReply(reply, answering: .login(user: try Username("ivy"), password: "pass")) == .timedOut)
    }

    @Test func unknownCommandIsReported() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        let connection = try BlogConnection(host: "127.0.0.1", port: fixture.port, timeout: 60)
        defer { connection.close() }
        let reply = try connection.send(raw: Array("delete:alice[E];".utf8))
        #expect(reply == .unknownCommand)
        #expect(BlogReply(reply) == .unknownCommand)
    }

    @Test(arguments: [
        Array("register:bad name:pw[E];".utf8),
        Array("login:onlyname[E];".utf8),
        Array("newpost:alice:[E];".utf8),
        Array("register:alice:".utf8) + [0xFF, 0xFE] + Array("[E];".utf8),
    ])
    func badFieldsAreBadArguments(message: [UInt8]) throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        let connection = try BlogConnection(host: "127.0.0.1", port: fixture.port, timeout: 60)
        defer { connection.close() }
        let reply = try connection.send(raw: message)
        #expect(reply == .badArguments)
        #expect(BlogReply(reply) == .badArguments)
    }
}

/// Waits until `condition` holds, polling; false after `timeout` seconds.
func eventually(timeout: Double = 60, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return condition()
}
