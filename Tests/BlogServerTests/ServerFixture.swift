import BlogCore
import BlogServer
import Foundation
import Logging
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A running `BlogServer` on a free loopback port, with its own temporary
/// database and public folder. Call `tearDown()` at the end (in a `defer`).
final class ServerFixture: @unchecked Sendable {
    let folder: URL
    let publicFolder: URL
    let store: BlogStore
    let pages: PageStore
    let service: BlogService
    let server: BlogServer
    let host: String
    private var isTornDown = false
    private var extraServers: [BlogServer] = []
    /// Every client made by `client`, closed by `tearDown` before the stop,
    /// so the stop does not wait for them.
    private let clients = Locked<[TestClient]>([])

    /// - Parameters:
    ///   - host: the address to listen on and connect to.
    ///   - settings: the service settings (cheap scrypt by default).
    ///   - configure: adjusts the server options (timeouts, limits, keep-alive).
    init(host: String = "127.0.0.1",
         settings: BlogService.Settings = .init(scrypt: .testing),
         configure: (inout BlogServer.Options) -> Void = { _ in }) throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("blogserver-tests-\(UUID().uuidString)", isDirectory: true)
        publicFolder = folder.appendingPathComponent("public", isDirectory: true)
        try FileManager.default.createDirectory(at: publicFolder, withIntermediateDirectories: true)
        store = try BlogStore(path: folder.appendingPathComponent("blog.sqlite").path)
        pages = PageStore(folder: publicFolder)
        var quiet = Logger(label: "blogd.tests")
        quiet.logLevel = .critical
        service = try BlogService(store: store, pages: pages, settings: settings, logger: quiet)
        var options = BlogServer.Options()
        options.host = host
        options.port = 0
        options.connection.lingerTimeout = 2
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

    /// Another server on the same service (same database, pages and login
    /// leases), listening on `host`; stopped by `tearDown`.
    func extraServer(host: String, configure: (inout BlogServer.Options) -> Void = { _ in }) throws -> BlogServer {
        var options = server.options
        options.host = host
        options.port = 0
        configure(&options)
        var quiet = Logger(label: "blogd.tests")
        quiet.logLevel = .critical
        let extra = BlogServer(service: service, options: options, logger: quiet)
        try extra.start()
        extraServers.append(extra)
        return extra
    }

    /// A new connection to the server (or to `server`, at `host`); with
    /// `source`, from that local IPv4 address (say, `127.0.0.2`).
    func client(timeout: Double = 10, server: BlogServer? = nil, host: String? = nil,
                receiveBuffer: Int32? = nil, source: String? = nil) throws -> TestClient {
        let client = try TestClient(port: (server ?? self.server).port, host: host ?? self.host,
                                    timeout: timeout, receiveBuffer: receiveBuffer, source: source)
        clients.withLock { $0.append(client) }
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
    func page(of user: String) -> String? {
        pages.read(user: user)
    }

    /// The number of posts of `user` in the database.
    func postCount(of user: String) throws -> Int {
        guard let id = try store.user(named: user)?.id else { return 0 }
        return try store.posts(ofUserID: id).count
    }

    /// Replaces the public folder by a regular file, so every page write fails
    /// (even as root, which chmod would not stop).
    func breakPublicFolder() throws {
        try FileManager.default.removeItem(at: publicFolder)
        try Data("not a folder".utf8).write(to: publicFolder)
    }

    /// Undoes `breakPublicFolder`: an empty public folder again.
    func repairPublicFolder() throws {
        try FileManager.default.removeItem(at: publicFolder)
        try FileManager.default.createDirectory(at: publicFolder, withIntermediateDirectories: true)
    }

    /// Stops the server (returns what `stop` returned), closes the store and
    /// removes the files.
    @discardableResult
    func tearDown(stopTimeout: Double = 10) -> Bool {
        guard !isTornDown else { return true }
        isTornDown = true
        clients.withLock { clients in
            clients.forEach { $0.close() }
            clients = []
        }
        let stopped = server.stop(timeout: stopTimeout)
        extraServers.forEach { $0.stop(timeout: stopTimeout) }
        try? store.close()
        try? FileManager.default.removeItem(at: folder)
        return stopped
    }

    deinit { tearDown() }
}

/// Whether this machine can listen on the IPv6 loopback.
let ipv6LoopbackAvailable: Bool = {
    let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_addr = in6addr_loopback
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
        }
    }
}()
