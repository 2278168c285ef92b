import BlogCore
import BlogPostgres
import BlogSQLite
import BlogTestSupport
import Foundation
import Logging
import Testing
import BlogModel

/// The backends the conformance suite runs over: SQLite always, PostgreSQL
/// when the test cluster can be had (`PostgresCluster.enabled`).
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    static var available: [Backend] { PostgresCluster.enabled ? allCases : [.sqlite] }

    var testDescription: String { rawValue }

    /// A store on a fresh, empty database; `cleanUp` removes what it left.
    func open() throws -> (store: any BlogStorage, cleanUp: @Sendable () -> Void) {
        switch self {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blogstorage-\(UUID().uuidString)")
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            return (store, { try? FileManager.default.removeItem(at: folder) })
        case .postgres:
            let url = try PostgresCluster.shared().makeDatabase()
            let quiet = Logger(label: "test.storage", factory: { _ in SwiftLogNoOpLogHandler() })
            return (try PostgresStore(location: PostgresLocation(url: url, environment: [:]), logger: quiet), {})
        }
    }

    /// Runs `body` with a store on a fresh database, closed afterwards.
    func withStore<T>(_ body: (any BlogStorage) throws -> T) throws -> T {
        let (store, cleanUp) = try open()
        defer {
            try? store.close()
            cleanUp()
        }
        return try body(store)
    }
}

/// 2027-01-15T08:00:00Z.
let t0 = Date(timeIntervalSince1970: 1_800_000_000)
