import BlogCore
import BlogTestSupport
import Foundation
import Testing
import BlogModel
@testable import BlogPostgres

/// `schema.postgres.sql` is exactly what the migrations make.
@Suite("PostgreSQL schema", .enabled(if: PostgresCluster.enabled))
struct PostgresSchemaTests {
    /// Every migration's number, once each, in order.
    static let everyVersion = PostgresSchema.migrations.map { String($0.version) }

    static let schemaFile = repositoryRoot.appendingPathComponent("schema.postgres.sql")

    /// Everything the catalog says of a database's tables, but the
    /// migrator's own bookkeeping: one text per query.
    static func catalog(_ database: String) throws -> [String] {
        let cluster = try PostgresCluster.shared()
        let queries = [
            """
            SELECT relname, relkind FROM pg_class
            WHERE relnamespace = 'public'::regnamespace AND relname NOT LIKE 'schema_migrations%' ORDER BY relname
            """,
            """
            SELECT table_name, ordinal_position, column_name, data_type, is_nullable, column_default,
                   is_identity, identity_generation, collation_name
            FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name <> 'schema_migrations' ORDER BY table_name, ordinal_position
            """,
            """
            SELECT conrelid::regclass::text, conname, contype, pg_get_constraintdef(oid) FROM pg_constraint
            WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text <> 'schema_migrations'
            ORDER BY 1, 2
            """,
            """
            SELECT tablename, indexname, indexdef FROM pg_indexes
            WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY 1, 2
            """,
        ]
        return try queries.map { try cluster.psql(database: database, $0) }
    }

    @Test func schemaFileMatchesMigration() throws {
        let cluster = try PostgresCluster.shared()
        let migratedURL = try freshDatabase()
        try openStore(migratedURL).close()
        let reference = PostgresCluster.databaseName(try freshDatabase())
        try cluster.psql(database: reference, file: Self.schemaFile)

        let migrated = try Self.catalog(PostgresCluster.databaseName(migratedURL))
        let expected = try Self.catalog(reference)
        let tables = try cluster.psql(database: reference, """
            SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1
            """)
        #expect(tables.split(separator: "\n") == ["access_tokens", "activity_deliveries", "activity_delivery_totals",
                                                    "activity_queue", "actor_blocks", "actor_keys",
                                                    "authorization_codes", "blog_settings", "deleted_posts", "followers", "leases", "login_failures", "photos", "post_tags", "post_tokens", "posts", "site_values",
                                                    "trashed_posts", "users", "webmention_outbox", "webmentions"])
        #expect(expected[3].contains("users_name_key"), "the unique index on lower(name)")
        for (have, want) in zip(migrated, expected) {
            #expect(have == want)
        }
    }

    @Test func migrationTextMatchesSchemaFileStatements() throws {
        func normalized(_ statements: [String]) -> [String] {
            statements.map { $0.replacing(/\s+/, with: " ") }
        }
        let file = try String(contentsOf: Self.schemaFile, encoding: .utf8)
        let migrations = PostgresSchema.migrations.flatMap { PostgresSchema.statements($0.sql) }
        #expect(normalized(PostgresSchema.statements(file)) == normalized(migrations))
        // Strictly rising (20 is another branch's until the merge; then
        // this can be `Array(1...count)` again).
        let versions = PostgresSchema.migrations.map(\.version)
        #expect(versions.first == 1 && zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func statementsSplitAtLineEnds() {
        #expect(PostgresSchema.statements("-- note\nCREATE TABLE a (x int);\n\n-- more\nCREATE INDEX i ON a (x);\n")
                == ["CREATE TABLE a (x int);", "CREATE INDEX i ON a (x);"])
        #expect(PostgresSchema.statements("SELECT 1") == ["SELECT 1"])
    }

    @Test func migrationsAreRecordedOnce() throws {
        let url = try freshDatabase()
        try openStore(url).close()
        try openStore(url).close()
        let versions = try PostgresCluster.shared().psql(database: PostgresCluster.databaseName(url),
                                                         "SELECT version FROM schema_migrations ORDER BY version")
        #expect(versions.split(separator: "\n").map(String.init) == Self.everyVersion)
    }

    /// A database made before posts kept their HTML source (migration 8)
    /// gets migration 9 at the next start: its posts read as before.
    @Test func aDatabaseBeforeContentHTMLIsMigrated() throws {
        let url = try freshDatabase()
        let cluster = try PostgresCluster.shared()
        let database = PostgresCluster.databaseName(url)
        try cluster.psql(database: database, PostgresSchema.bookkeeping)
        for migration in PostgresSchema.migrations.prefix(8) {
            try cluster.psql(database: database, migration.sql)
            try cluster.psql(database: database,
                             "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), '\(migration.name)')")
        }
        let photo = String(repeating: "0123456789abcdef", count: 2)
        try cluster.psql(database: database, """
            INSERT INTO users (name, password_hash, created_at) VALUES ('alice', 'h', '2027-01-15 08:00:00+00');
            INSERT INTO posts (user_id, title, content, created_at, page, weight, photos)
            SELECT id, 'Old', 'text', '2027-01-15 08:00:00+00', 1, 10, '\(photo):2048:1536:480:360' FROM users;
            """)
        let store = try openStore(url)
        defer { try? store.close() }
        let post = try #require(try store.recentPosts(limit: 1).first?.post)
        #expect(post.contentHTML == nil && post.title == "Old")
        #expect(post.photos == [PostPhoto(name: photo, width: 2048, height: 1536, thumbnailWidth: 480, thumbnailHeight: 360)])
        let edited = try store.editPost(id: post.id, ofUserID: post.userID,
                                        PostEdit(title: "Old", content: "t", contentHTML: "<p>t</p>"), weight: 5, at: Date())
        #expect(edited?.record.contentHTML == "<p>t</p>")
    }

    /// A database made before the trash (migration 8, a post with a
    /// photo) is brought up to date in place: its post can be trashed and
    /// restored with its photo.
    @Test func aDatabaseFromBeforeTheTrashIsUpgraded() throws {
        let cluster = try PostgresCluster.shared()
        let url = try freshDatabase()
        let database = PostgresCluster.databaseName(url)
        let old = PostgresSchema.migrations.filter { $0.version <= 8 }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("v8-\(UUID().uuidString).sql")
        defer { try? FileManager.default.removeItem(at: script) }
        try (old.map(\.sql).joined(separator: "\n") + "\n" + PostgresSchema.bookkeeping + ";\n"
             + old.map { "INSERT INTO schema_migrations (version, name) VALUES (\($0.version), '\($0.name)');" }
                .joined(separator: "\n")).write(to: script, atomically: true, encoding: .utf8)
        try cluster.psql(database: database, file: script)
        let photo = PostPhoto(name: String(repeating: "cd", count: 16), width: 4, height: 3, thumbnailWidth: 2,
                              thumbnailHeight: 1)
        try cluster.psql(database: database, """
            INSERT INTO users (name, password_hash, created_at) VALUES ('alice', 'h', '2027-01-15 08:00:00+00');
            INSERT INTO posts (user_id, title, content, created_at, page, weight, photos)
                VALUES (1, 't', 'c', '2027-01-15 08:00:00+00', 1, 9, '\(PostPhoto.columnText([photo]))');
            INSERT INTO photos (name, user_id, post_id, image, thumbnail, width, height, thumbnail_width,
                                thumbnail_height, created_at)
                VALUES ('\(photo.name)', 1, 1, '\\xffd8ffd9', '\\xffd8ffd9', 4, 3, 2, 1, '2027-01-15 08:00:00+00');
            UPDATE users SET post_count = 1, last_post_id = 1, last_post_at = '2027-01-15 08:00:00+00';
            """)
        let store = try openStore(url)
        defer { try? store.close() }
        let post = try #require(try store.posts(ids: [1]).first)
        #expect(post.photos == [photo])
        #expect(try store.trashPost(id: 1, ofUserID: 1, at: Date()) == post)
        #expect(try store.photoData(name: photo.name) == nil)
        #expect(try store.restorePost(id: 1, ofUserID: 1) == post)
        #expect(try store.photoData(name: photo.name)?.image == [0xFF, 0xD8, 0xFF, 0xD9])
    }

    /// A database from before tags (migration 11): its posts' hashtags
    /// become their tags in migration 12, by the rule's regular expression.
    @Test func postsFromBeforeTagsGetTheirHashtags() throws {
        let cluster = try PostgresCluster.shared()
        let url = try freshDatabase()
        let database = PostgresCluster.databaseName(url)
        let old = PostgresSchema.migrations.filter { $0.version <= 11 }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("v11-\(UUID().uuidString).sql")
        defer { try? FileManager.default.removeItem(at: script) }
        try (old.map(\.sql).joined(separator: "\n") + "\n" + PostgresSchema.bookkeeping + ";\n"
             + old.map { "INSERT INTO schema_migrations (version, name) VALUES (\($0.version), '\($0.name)');" }
                .joined(separator: "\n")).write(to: script, atomically: true, encoding: .utf8)
        try cluster.psql(database: database, file: script)
        try cluster.psql(database: database, """
            INSERT INTO users (name, password_hash, created_at) VALUES ('alice', 'h', '2027-01-15 08:00:00+00');
            INSERT INTO posts (user_id, title, content, created_at, page, weight) VALUES
                (1, 'a', 'Old #Swift and #swift, #1, #foo-https://x.org', '2027-01-15 08:00:00+00', 1, 1),
                (1, 'b', 'no tags', '2027-01-15 08:00:00+00', 1, 1),
                (1, 'c', '(#linux) https://x.org/#frag #x_', '2027-01-15 08:00:00+00', 1, 1);
            """)
        let store = try openStore(url)
        defer { try? store.close() }
        let tags = try cluster.psql(database: database, "SELECT post_id || ':' || tag FROM post_tags ORDER BY 1")
        #expect(tags.split(separator: "\n") == ["1:swift", "3:linux", "3:x"])
        #expect(try store.taggedPosts("linux", ofUserID: 1, before: nil, limit: 9).map(\.post.id) == [3])
        // Migration 13's generated column indexed them for search.
        #expect(try store.searchPosts(try SearchQuery("tags"), ofUserID: nil, offset: 0, limit: 9).map(\.post.id) == [2])
    }

    /// Instances that start together on a new database migrate it once,
    /// one waiting for the other.
    @Test func concurrentStartsMigrateOnce() throws {
        let url = try freshDatabase()
        let failures = Collector<String>()
        let stores = Collector<PostgresStore>()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do { stores.append(try openStore(url)) } catch { failures.append("\(error)") }
        }
        for store in stores.all { try store.close() }
        #expect(failures.all.isEmpty)
        let versions = try PostgresCluster.shared().psql(database: PostgresCluster.databaseName(url),
                                                         "SELECT version FROM schema_migrations ORDER BY version")
        #expect(versions.split(separator: "\n").map(String.init) == Self.everyVersion)
    }

    @Test func constraintsHold() throws {
        let url = try freshDatabase()
        try openStore(url).close()
        let cluster = try PostgresCluster.shared()
        let database = PostgresCluster.databaseName(url)
        let stamp = "'2027-01-15 08:00:00+00'"
        try cluster.psql(database: database, "INSERT INTO users (name, password_hash, created_at) VALUES ('Alice', 'h', \(stamp))")
        func fails(_ sql: String) -> Bool {
            (try? cluster.psql(database: database, sql)) == nil
        }
        func user(_ values: String) -> String { "INSERT INTO users (name, password_hash, created_at) VALUES (\(values))" }
        #expect(fails(user("'alice', 'h', \(stamp)")), "unique regardless of case")
        #expect(fails(user("'', 'h', \(stamp)")))
        #expect(fails(user("'\(String(repeating: "a", count: 33))', 'h', \(stamp)")))
        #expect(fails(user("'bob', '', \(stamp)")))
        #expect(fails(user("'bob', NULL, \(stamp)")))
        func post(_ values: String) -> String {
            "INSERT INTO posts (user_id, title, content, created_at, page, weight) VALUES (\(values))"
        }
        #expect(fails(post("999, 't', 'c', \(stamp), 1, 0")), "foreign key")
        #expect(fails(post("1, '', 'c', \(stamp), 1, 0")))
        #expect(fails(post("1, '\(String(repeating: "t", count: 201))', 'c', \(stamp), 1, 0")))
        #expect(fails(post("1, 't', NULL, \(stamp), 1, 0")))
        #expect(fails(post("1, 't', '', \(stamp), 0, 0")), "pages count from 1")
        #expect(fails(post("1, 't', '', \(stamp), 1, -1")))
        #expect(!fails(post("1, '\(String(repeating: "č", count: 200))', '', \(stamp), 1, 0")), "200 characters, not bytes")
        try cluster.psql(database: database, "DELETE FROM users WHERE name = 'Alice'")
        #expect(try cluster.psql(database: database, "SELECT count(*) FROM posts") == "0\n")
    }
}
