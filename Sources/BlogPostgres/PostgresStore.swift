import BlogModel
import Dispatch
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// Users and posts in PostgreSQL: the source of truth shared by any number
/// of blogd instances (with one shared public folder).
///
/// Every write returns once its commit is durable: the store's sessions
/// run with `synchronous_commit = on`, so an OK reply after it keeps its
/// promise. Posts of one user are serialized across instances by an
/// advisory lock around the insert, and page writes by another (see
/// `withPageLock`).
///
/// `BlogStorage` is synchronous and called from Dispatch threads: each call
/// runs PostgresNIO's async API on the store's event loop and blocks the
/// calling thread until it is done (`Blocking`).
///
///     let store = try PostgresStore(location: PostgresLocation(url: "postgres://blog@localhost/blog"))
public final class PostgresStore: BlogStorage {
    /// Tuning that rarely needs changing.
    public struct Options: Sendable {
        /// Connections for queries and inserts.
        public var maximumConnections = 16
        /// Connections that hold page locks while pages are written; apart
        /// from the others, so that page writers holding locks can always
        /// get a connection to read the posts they render.
        public var maximumLockConnections = 8
        /// Seconds any call may take, connecting and waiting for a pooled
        /// connection included; past it the call fails with
        /// `.deadlineExceeded`. The server cancels a statement running
        /// longer too (`statement_timeout`), so nothing is left behind.
        public var deadline: Double = 3

        public init(deadline: Double = 3) {
            self.deadline = deadline
        }

        /// How long connecting may take: the deadline.
        var connectTimeout: Duration { .milliseconds(Int64(deadline * 1000)) }

        /// Settings every session starts with: durable commits whatever the
        /// server's default, so an OK reply keeps its promise; statements
        /// cancelled past the deadline; and a transaction left idle (its
        /// caller gone) ended well after any page write would finish.
        var sessionSettings: [(String, String)] {
            let milliseconds = Int(deadline * 1000)
            return [("synchronous_commit", "on"), ("application_name", "blogd"),
                    ("statement_timeout", "\(milliseconds)"),
                    ("idle_in_transaction_session_timeout", "\(max(60_000, 10 * milliseconds))")]
        }

        /// For the first connection, which migrates: waiting for another
        /// instance's migration, or running one, may take longer.
        var migrationSettings: [(String, String)] { [("synchronous_commit", "on"), ("application_name", "blogd")] }
    }

    public let location: PostgresLocation
    /// Seconds a call may take (`Options.deadline`).
    public let deadline: Double
    let client: PostgresClient
    /// For page locks only (see `Options.maximumLockConnections`).
    let lockClient: PostgresClient
    let blocking: Blocking
    let logger: Logger
    let gate = StoreGate()
    /// What the post paths queue in the Webmention outbox (off until set).
    let mentions = MentionQueueing()
    let heldMentions = HeldMentions()
    /// Whether the post paths queue ActivityPub activities (off until set).
    let activities = ActivityQueueing()
    private let running: Mutex<[Task<Void, Never>]>

    /// Connects to the database at `location`, and (with `migrate`) brings
    /// its schema up to date first. Fails at once with the server's reason
    /// when the database cannot be reached or used.
    public init(location: PostgresLocation, migrate: Bool = true, options: Options = Options(),
                logger: Logger = Logger(label: "blogd.postgres")) throws(StorageError) {
        self.location = location
        self.logger = logger
        self.deadline = options.deadline
        let group = PostgresClient.defaultEventLoopGroup
        blocking = Blocking()
        let tls: PostgresClient.Configuration.TLS
        let connectionTLS: PostgresConnection.Configuration.TLS
        do {
            (tls, connectionTLS) = try Self.tls(location)
        } catch {
            throw .cannotOpen(path: location.description, reason: "TLS: \(error)")
        }
        client = PostgresClient(configuration: Self.clientConfiguration(location, tls: tls, connections: options.maximumConnections,
                                                                        options: options),
                                eventLoopGroup: group, backgroundLogger: logger)
        lockClient = PostgresClient(configuration: Self.clientConfiguration(location, tls: tls, connections: options.maximumLockConnections,
                                                                            options: options),
                                    eventLoopGroup: group, backgroundLogger: logger)
        running = Mutex([])
        // A first connection of its own: its failure (refused, bad
        // password, no such database) is reported now, in the server's
        // words, where the pool would only retry in the background.
        let connection = Self.connectionConfiguration(location, tls: connectionTLS, options: options)
        do {
            try blocking.run { [logger] in
                let first = try await PostgresConnection.connect(configuration: connection, id: 0, logger: logger)
                do {
                    if migrate { try await PostgresSchema.migrate(first, logger: logger) }
                    try await first.close()
                } catch {
                    try? await first.close()
                    throw error
                }
            }
        } catch {
            throw .cannotOpen(path: location.description, reason: PostgresFailure.reason(error))
        }
        // The pools work only while their `run()` does: tasks of the
        // store's own, cancelled by `close()`.
        let clients = [client, lockClient]
        running.withLock { tasks in
            tasks = clients.map { client in Task(executorPreference: blocking.executor) { await client.run() } }
        }
        // One query through each pool: it is served only once the pool's
        // `run()` works, and a pool cancelled before that never finishes
        // shutting down, which would hang `close()`.
        do {
            try blocking.run { [logger] in
                for client in clients { try await client.query("SELECT 1", logger: logger) }
            }
        } catch {
            running.withLock { $0 }.forEach { $0.cancel() }
            throw .cannotOpen(path: location.description, reason: PostgresFailure.reason(error))
        }
    }

    /// Closes the pools once every call inside has finished; later calls fail.
    public func close() throws(StorageError) {
        _ = try gate.close { () throws(StorageError) in
            let tasks = running.withLock { tasks in
                defer { tasks = [] }
                return tasks
            }
            // The pools close their connections in the background. Not
            // waited for: nothing is left to commit, and part of their
            // shutdown runs on Swift's cooperative pool, which a caller
            // blocked here (a test, a command's async `run`) may hold.
            tasks.forEach { $0.cancel() }
        }
    }

    /// Runs `work` with a pooled connection, blocking until it is done or
    /// `seconds` (the deadline) have passed.
    func withConnection<T: Sendable>(within seconds: Double? = nil,
                                     _ work: @escaping @Sendable (PostgresConnection) async throws -> T) throws(StorageError) -> T {
        try gate.pass { () throws(StorageError) in
            do {
                return try blocking.run(within: RequestDeadline.seconds(upTo: seconds ?? deadline)) { [client] in
                    try await client.withConnection { connection in
                        // PostgresNIO does not stop a query for a cancelled
                        // task: closing the connection does, frees its place
                        // in the pool (a reply lost with the server's host
                        // would hold it for good), and makes the server
                        // roll back what was not committed.
                        try await withTaskCancellationHandler {
                            try await work(connection)
                        } onCancel: {
                            connection.close().whenComplete { _ in }
                        }
                    }
                }
            } catch {
                throw PostgresFailure.storageError(error)
            }
        }
    }

    /// Runs `work` in a transaction on a pooled connection; returns once
    /// the commit is durable.
    func transaction<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T) throws(StorageError) -> T {
        try withConnection { [logger] connection in
            try await connection.inTransaction(logger: logger, work)
        }
    }

    /// Runs one statement and returns its rows, decoded by `decode`.
    func rows<T: Sendable>(_ query: PostgresQuery, _ decode: @escaping @Sendable (PostgresRow) throws -> T) throws(StorageError) -> [T] {
        try withConnection { [logger] connection in
            var values: [T] = []
            for try await row in try await connection.query(query, logger: logger) {
                values.append(try decode(row))
            }
            return values
        }
    }

    /// Runs one statement for its effect.
    func execute(_ query: PostgresQuery) throws(StorageError) {
        _ = try rows(query) { _ in () }
    }

    // MARK: Configuration

    private static func clientConfiguration(_ location: PostgresLocation, tls: PostgresClient.Configuration.TLS,
                                            connections: Int, options: Options) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socket = location.unixSocketPath {
            configuration = .init(unixSocketPath: socket, username: location.user, password: location.password,
                                  database: location.database)
        } else {
            configuration = .init(host: location.host, port: location.port, username: location.user,
                                  password: location.password, database: location.database, tls: tls)
        }
        configuration.options.maximumConnections = connections
        configuration.options.connectTimeout = options.connectTimeout
        configuration.options.additionalStartupParameters = options.sessionSettings
        return configuration
    }

    private static func connectionConfiguration(_ location: PostgresLocation, tls: PostgresConnection.Configuration.TLS,
                                                options: Options) -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socket = location.unixSocketPath {
            configuration = .init(unixSocketPath: socket, username: location.user, password: location.password,
                                  database: location.database)
        } else {
            configuration = .init(host: location.host, port: location.port, username: location.user,
                                  password: location.password, database: location.database, tls: tls)
        }
        configuration.options.connectTimeout = .milliseconds(Int64(options.deadline * 1000))
        configuration.options.additionalStartupParameters = options.migrationSettings
        return configuration
    }

    /// The TLS settings of `location.tls`, as libpq's `sslmode` means them.
    private static func tls(_ location: PostgresLocation) throws
        -> (PostgresClient.Configuration.TLS, PostgresConnection.Configuration.TLS) {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch location.tls {
        case .disable:
            return (.disable, .disable)
        case .prefer:
            configuration.certificateVerification = .none
            return (.prefer(configuration), .prefer(try NIOSSLContext(configuration: configuration)))
        case .require:
            configuration.certificateVerification = .none
            return (.require(configuration), .require(try NIOSSLContext(configuration: configuration)))
        case .verifyFull:
            return (.require(configuration), .require(try NIOSSLContext(configuration: configuration)))
        }
    }
}
