import BlogCore
import BlogTestSupport
import Foundation
import Logging
import Testing
@testable import BlogPostgres

/// Shared helpers of the PostgreSQL tests.

/// 2027-01-15T08:00:00Z, as in the BlogCore tests.
let t0 = Date(timeIntervalSince1970: 1_800_000_000)

/// A logger that says nothing.
let quiet = Logger(label: "test.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

/// A fresh database on the test cluster; returns its URL.
func freshDatabase() throws -> String {
    try PostgresCluster.shared().makeDatabase()
}

/// A store on `url` (migrated).
func openStore(_ url: String, options: PostgresStore.Options = .init()) throws -> PostgresStore {
    try PostgresStore(location: PostgresLocation(url: url, environment: [:]), options: options, logger: quiet)
}

/// Runs `body` with a store on a fresh database, closed afterwards.
func withStore<T>(_ body: (PostgresStore, String) throws -> T) throws -> T {
    let url = try freshDatabase()
    let store = try openStore(url)
    defer { try? store.close() }
    return try body(store, url)
}

/// The storage error `body` throws, or nil when it throws none.
func storageError(_ body: () throws -> Void) -> StorageError? {
    do {
        try body()
        return nil
    } catch let error as StorageError {
        return error
    } catch {
        Issue.record("not a StorageError: \(error)")
        return nil
    }
}

extension PostgresStore {
    /// `addPost` with the weight the service would compute and the default
    /// layout (50 posts a page).
    func addPost(userID: Int64, title: String, content: String, at date: Date,
                 layout: PageLayout = PageLayout(pageSize: 50)) throws(StorageError) -> PostRecord {
        try addPost(userID: userID, title: title, content: content,
                    weight: PageRenderer.weight(title: title, content: content), at: date, layout: layout)
    }
}

/// A fresh empty folder under the system temporary folder.
func makeTemporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("blogpg-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A value collected from many threads.
final class Collector<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []
    func append(_ item: Element) { lock.withLock { items.append(item) } }
    var all: [Element] { lock.withLock { items } }
}

/// The repository's top folder (this file is Tests/BlogPostgresTests/Support.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()
