import BlogCore
import BlogTestSupport
import Foundation
import Logging
import Testing
import BlogPages
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



/// A fresh empty folder under the system temporary folder.
func makeTemporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("blogpg-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Removes a folder of `makeTemporaryFolder`, and the staging folder a
/// `PublicFolder` of it made beside it.
func removeTemporaryFolder(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
    try? FileManager.default.removeItem(atPath: PublicFolder(folder: url).stagingPath)
}

/// The repository's top folder (this file is Tests/BlogPostgresTests/Support.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()
