import BlogCore
import BlogServer
import BlogSockets
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import BlogSQLite
import BlogPages
import BlogAuth

/// A whole blog for a test: a temporary folder holding `public/` and
/// `blog.sqlite`, a `SQLiteStore` and `PublicFolder` on them, a quiet
/// `BlogService`, and a `BlogServer` listening on a free loopback port
/// (never the production port 51515), already started.
///
/// Test fixtures (`ServerFixture`, `TestServer`) wrap one of these and add
/// their own clients. Call `tearDown(stopTimeout:)` when done: it stops the
/// server (and any `extraServer`), closes the store and removes the folder.
public final class TestBlog: @unchecked Sendable {
    /// The temporary folder that holds everything; removed by `tearDown`.
    public let folder: URL
    /// `folder/public`, where the pages go.
    public let publicFolder: URL
    /// The database, `folder/blog.sqlite`.
    public let store: SQLiteStore
    /// The pages in `publicFolder`.
    public let pages: PublicFolder
    /// The service behind `server` (and any `extraServer`).
    public let service: BlogService
    /// The running server.
    public let server: BlogServer
    /// The address the server listens on, and clients connect to.
    public let host: String
    /// The logger given to the service and servers, showing only critical
    /// messages.
    public let logger: Logger
    /// The clock of the server's timeouts and of the service's leases and
    /// lockouts: it moves only when the test says, so no timeout fires
    /// because the machine is busy.
    public let clock: ManualClock

    /// The wall-clock date `clock` stands for, as the service sees it.
    public static func date(of clock: ManualClock) -> Date {
        Date(timeIntervalSince1970: 1_800_000_000 + Double(clock.now.nanoseconds) / 1e9)
    }

    private let state = NSLock()
    private var tornDown = false
    private var extraServers: [BlogServer] = []

    /// Makes the folder, store, pages and service, and starts the server.
    /// On failure, removes what it made and rethrows.
    ///
    /// - Parameters:
    ///   - host: the address to listen on (and for clients to connect to).
    ///   - settings: the service settings (cheap scrypt by default).
    ///   - folderPrefix: the start of the temporary folder's name (a UUID
    ///     follows).
    ///   - loggerLabel: the label of the quiet logger.
    ///   - lingerTimeout: `options.connection.lingerTimeout`, set before
    ///     `configure` runs.
    ///   - clock: the clock of the server and the service.
    ///   - configure: adjusts the server options (timeouts, limits,
    ///     keep-alive); it must not pick port 51515.
    public init(host: String = "127.0.0.1",
                settings: BlogService.Settings = .init(scrypt: .testing),
                folderPrefix: String = "blog-tests",
                loggerLabel: String = "blogd.tests",
                lingerTimeout: Double = 2,
                clock: ManualClock = ManualClock(),
                configure: (inout BlogServer.Options) -> Void = { _ in }) throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(folderPrefix)-\(UUID().uuidString)", isDirectory: true)
        let publicFolder = folder.appendingPathComponent("public", isDirectory: true)
        try FileManager.default.createDirectory(at: publicFolder, withIntermediateDirectories: true)
        var store: SQLiteStore?
        do {
            let opened = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            store = opened
            let pages = PublicFolder(folder: publicFolder)
            var quiet = Logger(label: loggerLabel)
            quiet.logLevel = .critical
            let service = try BlogService(store: opened, pages: pages, settings: settings, logger: quiet,
                                          now: { TestBlog.date(of: clock) })
            var options = BlogServer.Options()
            options.host = host
            options.port = 0
            options.clock = .manual(clock)
            // Many tests send dozens of requests from 127.0.0.1 on a clock
            // that never moves: no per-address budget unless a test sets one.
            options.maxConnectionsPerAddress = 1_000_000
            options.hashBurstPerAddress = 1_000_000
            options.postBurstBytesPerAddress = 1 << 40
            options.maxHashWait = 3600
            // err:BUSY at once, unless a test of the delay asks for one.
            options.connection.refusalHold = .none
            options.connection.lingerTimeout = lingerTimeout
            configure(&options)
            precondition(options.port != 51515, "tests never use the production port")
            let server = BlogServer(service: service, options: options, logger: quiet)
            try server.start()
            self.folder = folder
            self.publicFolder = publicFolder
            self.store = opened
            self.pages = pages
            self.service = service
            self.server = server
            self.host = host
            self.logger = quiet
            self.clock = clock
        } catch {
            try? store?.close()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Whether `tearDown` has been called.
    public var isTornDown: Bool { state.withLock { tornDown } }

    /// The port the server got.
    public var port: Int { server.port }

    /// Another server on the same service (same database, pages and login
    /// leases), with the options of `server` but listening on `host` (on a
    /// free port); stopped by `tearDown`.
    public func extraServer(host: String,
                            configure: (inout BlogServer.Options) -> Void = { _ in }) throws -> BlogServer {
        var options = server.options
        options.host = host
        options.port = 0
        configure(&options)
        precondition(options.port != 51515, "tests never use the production port")
        let extra = BlogServer(service: service, options: options, logger: logger)
        try extra.start()
        state.withLock { extraServers.append(extra) }
        return extra
    }

    /// Stops the server, then any extra servers, closes the store and removes
    /// the folder. Returns what the server's `stop` returned. Only the first
    /// call does anything; later ones return true.
    @discardableResult
    public func tearDown(stopTimeout: Double = 60) -> Bool {
        let extras: [BlogServer]? = state.withLock {
            guard !tornDown else { return nil }
            tornDown = true
            defer { extraServers = [] }
            return extraServers
        }
        guard let extras else { return true }
        // Whatever the test left open times out or stops lingering now.
        clock.advance(by: 86_400)
        let stopped = server.stop(timeout: stopTimeout)
        extras.forEach { $0.stop(timeout: stopTimeout) }
        try? store.close()
        try? FileManager.default.removeItem(at: folder)
        return stopped
    }

    /// Replaces the public folder by a regular file, so every page write fails
    /// (even as root, which chmod would not stop).
    public func breakPublicFolder() throws {
        // The index is rewritten in the background after a register: let
        // that finish, or its temporary file races the removal.
        service.writeIndex()
        try FileManager.default.removeItem(at: publicFolder)
        try Data("not a folder".utf8).write(to: publicFolder)
    }

    /// Undoes `breakPublicFolder`: an empty public folder again.
    public func repairPublicFolder() throws {
        try FileManager.default.removeItem(at: publicFolder)
        try FileManager.default.createDirectory(at: publicFolder, withIntermediateDirectories: true)
    }

    /// Puts a user straight in the database, who never registered or logged
    /// in through the server (so holds no login lease).
    public func createUserDirectly(_ name: String) throws {
        _ = try store.createUser(name: name, passwordHash: "not-a-real-hash", at: Date())
    }

    /// The page of `user` as it is on disk, or nil.
    public func page(of user: String) -> String? {
        pages.read(user: user)
    }

    /// The number of posts of `user` in the database (0 for no such user).
    public func postCount(of user: String) throws -> Int {
        guard let id = try store.user(named: user)?.id else { return 0 }
        return try store.posts(ofUserID: id).count
    }
}

/// Whether this machine can listen on the IPv6 loopback (tests of `::1`
/// are skipped where it cannot).
public let ipv6LoopbackAvailable: Bool = {
    guard let socket = try? Socket.tcp(family: AF_INET6) else { return false }
    defer { socket.close() }
    return (try? socket.bind(to: SocketAddress(ip: "::1", port: 0))) != nil
}()
