import Foundation
import GRDB
import Testing
@testable import BlogCore

@Suite("Schema")
struct SchemaTests {
    private struct Entry: Equatable, CustomStringConvertible {
        var type: String
        var name: String
        var table: String
        var sql: String?
        var description: String { "\(type) \(name) on \(table): \(sql ?? "nil")" }
    }

    private static let masterQuery = """
        SELECT type, name, tbl_name, sql FROM sqlite_master
        WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
        ORDER BY name
        """

    private static func normalized(_ sql: String?) -> String? {
        sql?.replacing(/\s+/, with: " ").trimmingCharacters(in: .whitespaces)
    }

    private static func entries(_ db: Database) throws -> [Entry] {
        try Row.fetchAll(db, sql: masterQuery).map { row in
            Entry(type: row["type"], name: row["name"], table: row["tbl_name"], sql: normalized(row["sql"]))
        }
    }

    private static let schemaFile = repositoryRoot.appendingPathComponent("schema.sql")

    @Test func schemaFileMatchesMigration() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try BlogStore(path: folder.appendingPathComponent("blog.sqlite").path)
            let migrated = try store.pool.read(Self.entries)
            try store.close()

            let text = try String(contentsOf: Self.schemaFile, encoding: .utf8)
            let reference = try DatabaseQueue(path: folder.appendingPathComponent("reference.sqlite").path)
            try reference.write { try $0.execute(sql: text) }
            let expected = try reference.read(Self.entries)
            try reference.close()

            #expect(expected.map(\.name) == ["posts", "posts_by_user", "users"])
            #expect(migrated == expected)
        }
    }

    @Test func migrationTextMatchesSchemaFileStatements() throws {
        // The statements of schema.sql (comments dropped) are Schema.version1.
        let text = try String(contentsOf: Self.schemaFile, encoding: .utf8)
        let statements = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("--") }
            .joined(separator: "\n")
        #expect(Self.normalized(statements) == Self.normalized(Schema.version1))
    }

    @Test func writerPragmas() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try BlogStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            #expect(try store.writerPragma("synchronous") == "2", "FULL")
            #expect(try store.writerPragma("journal_mode") == "wal")
            #expect(try store.writerPragma("foreign_keys") == "1")
            #expect(try store.pool.read { try Int.fetchOne($0, sql: "PRAGMA foreign_keys") } == 1)
        }
    }

    @Test func pragmasAfterReopen() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("blog.sqlite").path
            try BlogStore(path: path).close()
            let store = try BlogStore(path: path, create: false)
            defer { try? store.close() }
            #expect(try store.writerPragma("synchronous") == "2")
            #expect(try store.writerPragma("journal_mode") == "wal")
        }
    }

    @Test func migrationIsRecordedOnce() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("blog.sqlite").path
            try BlogStore(path: path).close()
            let store = try BlogStore(path: path)
            defer { try? store.close() }
            let applied = try store.pool.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
            #expect(applied == ["v1"])
        }
    }

    @Test func constraintsHold() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try BlogStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let stamp = "2027-01-15 08:00:00.000"
            try store.pool.write { db in
                try db.execute(sql: "INSERT INTO users (name, password_hash, created_at) VALUES ('Alice', 'h', ?)", arguments: [stamp])
            }
            func fails(_ sql: String) -> Bool {
                do { try store.pool.write { try $0.execute(sql: sql) }; return false } catch { return true }
            }
            #expect(fails("INSERT INTO users (name, password_hash, created_at) VALUES ('alice', 'h', '\(stamp)')"), "unique regardless of case")
            #expect(fails("INSERT INTO users (name, password_hash, created_at) VALUES ('', 'h', '\(stamp)')"))
            #expect(fails("INSERT INTO users (name, password_hash, created_at) VALUES ('\(String(repeating: "a", count: 33))', 'h', '\(stamp)')"))
            #expect(fails("INSERT INTO users (name, password_hash, created_at) VALUES ('bob', '', '\(stamp)')"))
            #expect(fails("INSERT INTO users (name, password_hash, created_at) VALUES ('bob', NULL, '\(stamp)')"))
            #expect(fails("INSERT INTO posts (user_id, title, content, created_at) VALUES (999, 't', 'c', '\(stamp)')"), "foreign key")
            #expect(fails("INSERT INTO posts (user_id, title, content, created_at) VALUES (1, '', 'c', '\(stamp)')"))
            #expect(fails("INSERT INTO posts (user_id, title, content, created_at) VALUES (1, '\(String(repeating: "t", count: 201))', 'c', '\(stamp)')"))
            #expect(fails("INSERT INTO posts (user_id, title, content, created_at) VALUES (1, 't', NULL, '\(stamp)')"))
            #expect(!fails("INSERT INTO posts (user_id, title, content, created_at) VALUES (1, 't', '', '\(stamp)')"))

            // Deleting a user deletes their posts.
            try store.pool.write { try $0.execute(sql: "DELETE FROM users WHERE name = 'ALICE'") }
            #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM posts") } == 0)
        }
    }

    @Test func storedTimesAreUTCText() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try BlogStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let user = try store.createUser(name: "alice", passwordHash: "h", at: Date(timeIntervalSince1970: 1_800_000_000.25))
            _ = try store.addPost(userID: user.id!, title: "t", content: "c", at: Date(timeIntervalSince1970: 1_800_000_001.5))
            let users = try store.pool.read { try String.fetchAll($0, sql: "SELECT created_at FROM users") }
            let posts = try store.pool.read { try String.fetchAll($0, sql: "SELECT created_at FROM posts") }
            // schema.sql: 'YYYY-MM-DD HH:MM:SS.SSS', UTC.
            #expect(users == ["2027-01-15 08:00:00.250"])
            #expect(posts == ["2027-01-15 08:00:01.500"])
        }
    }
}
