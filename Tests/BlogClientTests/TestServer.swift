import BlogClient
import BlogCore
import BlogServer
import BlogTestSupport
import Foundation

/// A real `BlogServer` on a free loopback port (never 51515), with its own
/// temporary database and public folder (a `TestBlog`), plus `BlogClient`s
/// for it. Call `shutdown()` when done.
@dynamicMemberLookup
final class TestServer: @unchecked Sendable {
    /// The folder, store, pages, service and running server. Its properties
    /// read as the fixture's own (`folder`, `store`, `server`, `port`, …).
    let blog: TestBlog

    subscript<Value>(dynamicMember keyPath: KeyPath<TestBlog, Value>) -> Value {
        blog[keyPath: keyPath]
    }

    /// - Parameters:
    ///   - host: the address to listen on (and for `client` to connect to).
    ///   - configure: adjusts the options (limits, timeouts, keep-alive).
    init(host: String = "127.0.0.1", configure: (inout BlogServer.Options) -> Void = { _ in }) throws {
        blog = try TestBlog(host: host, folderPrefix: "blogclient-tests", loggerLabel: "blogclient.tests",
                            lingerTimeout: 1, configure: configure)
    }

    /// A one-connection-per-request client of this server.
    func client(timeout: Double = 60) -> BlogClient {
        BlogClient(host: blog.host, port: blog.port, timeout: timeout)
    }

    /// Stops the server, closes the database, removes the folder.
    func shutdown() {
        blog.tearDown(stopTimeout: 60)
    }

    /// Makes every page write fail: the public folder becomes a regular file.
    func breakPages() throws { try blog.breakPublicFolder() }

    /// A user straight in the database, who never registered or logged in
    /// through the server (so holds no login lease).
    func createUserDirectly(_ name: String) throws { try blog.createUserDirectly(name) }

    /// The user's page, or nil.
    func page(of user: String) -> String? { blog.page(of: user) }
}
