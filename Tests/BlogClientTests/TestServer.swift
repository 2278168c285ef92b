import BlogClient
import BlogCore
import BlogServer
import Foundation
import Logging

/// A real `BlogServer` on a free loopback port (never 51515), with its own
/// temporary database and public folder. Call `shutdown()` when done.
final class TestServer: @unchecked Sendable {
    let folder: URL
    let publicFolder: URL
    let store: BlogStore
    let pages: PageStore
    let server: BlogServer
    let host: String

    /// - Parameters:
    ///   - host: the address to listen on (and for `client` to connect to).
    ///   - configure: adjusts the options (limits, timeouts, keep-alive).
    init(host: String = "127.0.0.1", configure: (inout BlogServer.Options) -> Void = { _ in }) throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("blogclient-tests-\(UUID().uuidString)", isDirectory: true)
        publicFolder = folder.appendingPathComponent("public", isDirectory: true)
        try FileManager.default.createDirectory(at: publicFolder, withIntermediateDirectories: true)
        store = try BlogStore(path: folder.appendingPathComponent("blog.sqlite").path)
        pages = PageStore(folder: publicFolder)
        var quiet = Logger(label: "blogclient.tests")
        quiet.logLevel = .critical
        let service = try BlogService(store: store, pages: pages, settings: .init(scrypt: .testing), logger: quiet)
        var options = BlogServer.Options()
        options.host = host
        options.port = 0
        options.connection.lingerTimeout = 1
        configure(&options)
        precondition(options.port != 51515, "tests never use the production port")
        self.host = host
        server = BlogServer(service: service, options: options, logger: quiet)
        do {
            try server.start()
        } catch {
            try? store.close()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    var port: Int { server.port }

    /// A one-connection-per-request client of this server.
    func client(timeout: Double = 5) -> BlogClient {
        BlogClient(host: host, port: port, timeout: timeout)
    }

    /// Stops the server, closes the database, removes the folder.
    func shutdown() {
        server.stop(timeout: 5)
        try? store.close()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Makes every page write fail: the public folder becomes a regular file.
    func breakPages() throws {
        try FileManager.default.removeItem(at: publicFolder)
        try Data("not a folder".utf8).write(to: publicFolder)
    }

    /// A user straight in the database, who never registered or logged in
    /// through the server (so holds no login lease).
    func createUserDirectly(_ name: String) throws {
        _ = try store.createUser(name: name, passwordHash: "not-a-real-hash", at: Date())
    }

    /// The user's page, or nil.
    func page(of user: String) -> String? { pages.read(user: user) }
}

