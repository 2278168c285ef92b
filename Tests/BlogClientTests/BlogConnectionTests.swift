import BlogClient
import BlogTestSupport
import BlogCore
import Foundation
import Testing
import BlogWire

/// `BlogConnection`: keep-alive sessions, pipelining, address families.
@Suite struct BlogConnectionTests {
    @Test func keepAliveSessionSendsManyMessagesOnOneConnection() throws {
        let fixture = try TestServer { $0.connection.keepAlive = true }
        defer { fixture.shutdown() }
        let connection = try BlogConnection(host: "127.0.0.1", port: fixture.port, timeout: 60)
        defer { connection.close() }
        #expect(connection.peerAddress == "127.0.0.1")
        #expect(try connection.send(.registering(user: "kate", password: "pw")) == .registered)
        #expect(try connection.send(.loggingIn(user: "kate", password: "pw")) == .loggedIn)
        for number in 1...3 {
            #expect(try connection.send(.posting(user: "kate", title: "Post \(number)", content: "text")) == .posted)
        }
        let page = try #require(fixture.page(of: "kate"))
        let first = try #require(page.range(of: "Post 1"))
        let third = try #require(page.range(of: "Post 3"))
        #expect(third.lowerBound < first.lowerBound, "newest first")
    }

    @Test func pipelinedMessagesGetTheirRepliesInOrder() throws {
        let fixture = try TestServer { $0.connection.keepAlive = true }
        defer { fixture.shutdown() }
        let connection = try BlogConnection(host: "127.0.0.1", port: fixture.port, timeout: 60)
        defer { connection.close() }
        let messages = try [
            Request.registering(user: "liam", password: "pw"),
            Request.registering(user: "liam", password: "pw"),
            Request.loggingIn(user: "liam", password: "bad"),
        ].map { try $0.wireMessage() }
        try connection.write(messages.flatMap { $0 })
        #expect(try connection.readReply() == .registered)
        #expect(try connection.readReply() == .nameTaken)
        #expect(try connection.readReply() == .loginRefused)
    }

    @Test func closedWriteHalfStillGetsTheReply() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        let connection = try BlogConnection(host: "127.0.0.1", port: fixture.port, timeout: 60)
        defer { connection.close() }
        try connection.write(try Request.registering(user: "mia", password: "pw").wireMessage())
        connection.closeWrite()
        #expect(try connection.readReply() == .registered)
    }

    @Test func localhostReachesAnIPv4OnlyServer() throws {
        let fixture = try TestServer(host: "127.0.0.1")
        defer { fixture.shutdown() }
        let client = BlogClient(port: fixture.port, timeout: 60)
        #expect(client.host == "localhost")
        #expect(try client.register(user: "nina", password: "pw") == .ok)
    }

    @Test(.enabled(if: ipv6LoopbackAvailable), arguments: ["::1", "[::1]"])
    func ipv6LoopbackWorks(host: String) throws {
        let fixture = try TestServer(host: "::1")
        defer { fixture.shutdown() }
        let connection = try BlogConnection(host: host, port: fixture.port, timeout: 60)
        defer { connection.close() }
        #expect(connection.peerAddress == "::1")
        #expect(try connection.send(.registering(user: "omar", password: "pw")) == .registered)
        #expect(try BlogClient(host: host, port: fixture.port).login(user: "omar", password: "pw") == .ok)
    }

    @Test func callsAfterCloseFailAsClosed() throws {
        let fixture = try TestServer()
        defer { fixture.shutdown() }
        let connection = try BlogConnection(host: "127.0.0.1", port: fixture.port, timeout: 60)
        connection.close()
        #expect(throws: BlogClientError.closedWithoutReply(partial: "")) {
            try connection.send(.loggingIn(user: "pat", password: "pw"))
        }
    }
}
