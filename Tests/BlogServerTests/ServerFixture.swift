import BlogCore
import BlogServer
import BlogTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A running `BlogServer` on a free loopback port, with its own temporary
/// database and public folder (a `TestBlog`), plus raw `TestClient`s for it.
/// Call `tearDown()` at the end (in a `defer`).
@dynamicMemberLookup
final class ServerFixture: @unchecked Sendable {
    /// The folder, store, pages, service and running server. Its properties
    /// read as the fixture's own (`folder`, `store`, `server`, `port`, …).
    let blog: TestBlog
    /// Every client made by `client`, closed by `tearDown` before the stop,
    /// so the stop does not wait for them.
    private let clients = Locked<[TestClient]>([])

    subscript<Value>(dynamicMember keyPath: KeyPath<TestBlog, Value>) -> Value {
        blog[keyPath: keyPath]
    }

    /// - Parameters:
    ///   - host: the address to listen on and connect to.
    ///   - settings: the service settings (cheap scrypt by default).
    ///   - configure: adjusts the server options (timeouts, limits, keep-alive).
    init(host: String = "127.0.0.1",
         settings: BlogService.Settings = .init(scrypt: .testing),
         configure: (inout BlogServer.Options) -> Void = { _ in }) throws {
        blog = try TestBlog(host: host, settings: settings, folderPrefix: "blogserver-tests",
                            loggerLabel: "blogd.tests", lingerTimeout: 2, configure: configure)
    }

    /// Moves the server's and the service's clock on: timeouts, lingers,
    /// leases and lockouts due by then take effect.
    func advance(by seconds: Double) { blog.clock.advance(by: seconds) }

    /// Another server on the same service (same database, pages and login
    /// leases), listening on `host`; stopped by `tearDown`.
    func extraServer(host: String, configure: (inout BlogServer.Options) -> Void = { _ in }) throws -> BlogServer {
        try blog.extraServer(host: host, configure: configure)
    }

    /// A new connection to the server (or to `server`, at `host`); with
    /// `source`, from that local IPv4 address (say, `127.0.0.2`).
    func client(timeout: Double = 60, server: BlogServer? = nil, host: String? = nil,
                receiveBuffer: Int32? = nil, source: String? = nil) throws -> TestClient {
        let client = try TestClient(port: (server ?? self.server).port, host: host ?? self.host,
                                    timeout: timeout, receiveBuffer: receiveBuffer, source: source)
        clients.withLock { $0.append(client) }
        return client
    }

    /// A new connection, returned once the server has accepted it: its read
    /// timeout then runs on the server's clock from now.
    func acceptedClient(timeout: Double = 60) throws -> TestClient {
        let before = blog.server.acceptedConnections
        let client = try client(timeout: timeout)
        #expect(eventually { self.blog.server.acceptedConnections > before }, "the server never accepted")
        return client
    }

    /// One message on its own connection, as the original client does:
    /// returns the reply and how the stream ended after it.
    func exchange(_ message: String) throws -> (reply: String, end: StreamEnd) {
        try exchange(Array(message.utf8))
    }

    func exchange(_ message: [UInt8]) throws -> (reply: String, end: StreamEnd) {
        let client = try client()
        defer { client.close() }
        try client.send(message)
        let (text, end) = client.readToEnd()
        return (text, end)
    }

    /// The reply to one message on its own connection; records an issue if
    /// the server did not close cleanly after it.
    func ask(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let (reply, end) = try exchange(message)
        #expect(end == .eof, "after \(reply.debugDescription)", sourceLocation: sourceLocation)
        return reply
    }

    /// Registers and logs in `user` with password `pw`, each on its own
    /// connection.
    func registerAndLogin(_ user: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try ask("register:\(user):pw[E];") == "reg:OK[E];", sourceLocation: sourceLocation)
        #expect(try ask("login:\(user):pw[E];") == "log:OK[E];", sourceLocation: sourceLocation)
    }

    /// The page of `user` as it is on disk.
    func page(of user: String) -> String? { blog.page(of: user) }

    /// The number of posts of `user` in the database.
    func postCount(of user: String) throws -> Int { try blog.postCount(of: user) }

    /// Replaces the public folder by a regular file, so every page write fails
    /// (even as root, which chmod would not stop).
    func breakPublicFolder() throws { try blog.breakPublicFolder() }

    /// Undoes `breakPublicFolder`: an empty public folder again.
    func repairPublicFolder() throws { try blog.repairPublicFolder() }

    /// Closes the clients made by `client`, then stops the server (returns
    /// what `stop` returned), closes the store and removes the files.
    @discardableResult
    func tearDown(stopTimeout: Double = 60) -> Bool {
        guard !blog.isTornDown else { return true }
        clients.withLock { clients in
            clients.forEach { $0.close() }
            clients = []
        }
        return blog.tearDown(stopTimeout: stopTimeout)
    }

    deinit { tearDown() }
}

