import Foundation
import GRDB
import Testing
import BlogTestSupport
import BlogModel
@testable import BlogPages
@testable import BlogCore
@testable import BlogSQLite

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
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            let migrated = try store.pool.read(Self.entries)
            try store.close()

            let text = try String(contentsOf: Self.schemaFile, encoding: .utf8)
            let reference = try DatabaseQueue(path: folder.appendingPathComponent("reference.sqlite").path)
            try reference.write { try $0.execute(sql: text) }
            let expected = try reference.read(Self.entries)
            try reference.close()

            #expect(expected.map(\.name) == ["access_tokens", "access_tokens_by_expiry", "access_tokens_by_user",
                                             "activity_deliveries", "activity_deliveries_by_due",
                                             "activity_deliveries_by_host", "activity_deliveries_by_post", "activity_delivery_totals",
                                             "activity_queue", "actor_blocks", "actor_keys",
                                             "authorization_codes", "authorization_codes_by_expiry",
                                             "authorization_codes_by_user", "blog_settings", "deleted_posts", "deleted_posts_by_user", "followers", "followers_by_actor", "followers_by_target",
                                             "followers_by_user", "leases", "login_failures", "photos",
                                             "photos_by_post", "photos_by_trashed_post", "photos_by_user",
                                             "photos_unattached", "post_tags", "post_tags_by_blog", "post_tags_by_tag",
                                             "posts", "posts_by_user", "posts_placed", "posts_search",
                                             "posts_search_config", "posts_search_data", "posts_search_delete",
                                             "posts_search_docsize", "posts_search_idx", "posts_search_insert",
                                             "posts_search_source", "posts_search_update", "site_values",
                                             "trashed_posts", "trashed_posts_by_time", "trashed_posts_by_user",
                                             "users", "users_by_activity", "webmention_outbox",
                                             "webmention_outbox_by_due", "webmentions", "webmentions_by_actor",
                                             "webmentions_by_remote_source", "webmentions_by_trashed_post", "webmentions_by_user",
                                             "webmentions_due", "webmentions_shown"])
            #expect(migrated == expected)
        }
    }

    /// The map page's read of a blog's placed posts goes through the
    /// partial index, never along all of the blog's posts.
    @Test func placedPostsUseTheirIndex() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let plan = try store.pool.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteStore.placedPostsQuery, arguments: [1, 500])
                    .map { $0["detail"] as String }
            }
            #expect(plan.contains { $0.contains("USING INDEX posts_placed") }, "\(plan)")
        }
    }

    @Test func writerPragmas() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            #expect(try store.writerPragma("synchronous") == "2", "FULL")
            #expect(try store.writerPragma("journal_mode") == "wal")
            #expect(try store.writerPragma("foreign_keys") == "1")
            #expect(try store.writerPragma("secure_delete") == "1", "purged text is overwritten")
            #expect(try store.pool.read { try Int.fetchOne($0, sql: "PRAGMA foreign_keys") } == 1)
        }
    }

    @Test func pragmasAfterReopen() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("blog.sqlite").path
            try SQLiteStore(path: path).close()
            let store = try SQLiteStore(path: path, create: false)
            defer { try? store.close() }
            #expect(try store.writerPragma("synchronous") == "2")
            #expect(try store.writerPragma("journal_mode") == "wal")
        }
    }

    @Test func migrationIsRecordedOnce() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("blog.sqlite").path
            try SQLiteStore(path: path).close()
            let store = try SQLiteStore(path: path)
            defer { try? store.close() }
            let applied = try store.pool.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
            #expect(applied == ["v1", "v2-page-groups", "v3-login-state", "v4-index-edits-suspensions", "v5-covering-post-index", "v6-posts-version", "v7-places", "v8-placed-post-index", "v9-access-tokens", "v10-photos", "v11-trash", "v12-site-values", "v13-content-html", "v14-authorization-codes", "v15-blog-settings", "v16-webmention-outbox", "v17-tags", "v18-search", "v19-webmentions", "v20-activitypub", "v21-follow-answers", "v22-trashed-responses",
                               "v23-block-notices", "v24-fan-out-point", "v25-delivery-hosts", "v26-follower-targets"])
        }
    }

    /// A fan-out step reads its next chunk of followers inside the
    /// writer's turn: by an index seek in their order, no scan, no sort.
    @Test func aFanOutStepsReadOfFollowersIsASeek() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let plan = try store.pool.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteStore.deliveryTargetsQuery,
                                 arguments: [1, "https://a.example/inbox", 101]).map { $0["detail"] as String }
            }
            #expect(plan == ["SEARCH followers USING INDEX followers_by_target (user_id=? AND state=? AND <expr>>?)"],
                    "\(plan)")
        }
    }

    /// A database made before the trash (v10, a post with a photo) is
    /// brought up to date in place: its post can be trashed and restored
    /// with its photo.
    @Test func aDatabaseFromBeforeTheTrashIsUpgraded() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("v10.sqlite").path
            let old = try DatabaseQueue(path: path)
            try Schema.migrator(layout: PageLayout(pageSize: 50)).migrate(old, upTo: "v10-photos")
            let photo = PostPhoto(name: String(repeating: "ab", count: 16), width: 4, height: 3, thumbnailWidth: 2,
                                  thumbnailHeight: 1)
            try old.write { db in
                try db.execute(sql: """
                    INSERT INTO users (id, name, password_hash, created_at) VALUES (1, 'alice', 'h', '2027-01-15 08:00:00.000');
                    INSERT INTO posts (id, user_id, title, content, created_at, page, weight, photos)
                        VALUES (5, 1, 't', 'c', '2027-01-15 08:00:00.000', 1, 9, ?);
                    INSERT INTO photos (name, user_id, post_id, image, thumbnail, width, height, thumbnail_width,
                                        thumbnail_height, created_at)
                        VALUES (?, 1, 5, x'FFD8FFD9', x'FFD8FFD9', 4, 3, 2, 1, '2027-01-15 08:00:00.000');
                    UPDATE users SET post_count = 1, last_post_id = 5, last_post_at = '2027-01-15 08:00:00.000';
                    """, arguments: [PostPhoto.columnText([photo]), photo.name])
            }
            try old.close()
            let store = try SQLiteStore(path: path)
            defer { try? store.close() }
            let post = try #require(try store.posts(ids: [5]).first)
            #expect(post.photos == [photo])
            #expect(try store.trashPost(id: 5, ofUserID: 1, at: Date()) == post)
            #expect(try store.photoData(name: photo.name) == nil)
            #expect(try store.restorePost(id: 5, ofUserID: 1) == post)
            #expect(try store.photoData(name: photo.name)?.image == [0xFF, 0xD8, 0xFF, 0xD9])
        }
    }

    /// A database made before posts kept their HTML source (v10) is
    /// brought up to date at the next open: its posts read as before, with
    /// no HTML, and their photos' column (without alt texts) as it was.
    @Test func aDatabaseBeforeContentHTMLIsMigrated() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("blog.sqlite").path
            let photo = String(repeating: "0123456789abcdef", count: 2)
            do {
                let pool = try DatabasePool(path: path)
                try Schema.migrator(layout: PageLayout(pageSize: 50)).migrate(pool, upTo: "v10-photos")
                try pool.write { db in
                    try db.execute(sql: "INSERT INTO users (name, password_hash, created_at) VALUES ('alice', 'h', '2027-01-15 08:00:00.000')")
                    try db.execute(sql: """
                        INSERT INTO posts (user_id, title, content, created_at, page, weight, photos)
                        VALUES (1, 'Old', 'text', '2027-01-15 08:00:00.000', 1, 10, '\(photo):2048:1536:480:360')
                        """)
                }
                try pool.close()
            }
            let store = try SQLiteStore(path: path)
            defer { try? store.close() }
            let post = try #require(try store.posts(ids: [1]).first)
            #expect(post.contentHTML == nil && post.title == "Old")
            #expect(post.photos == [PostPhoto(name: photo, width: 2048, height: 1536, thumbnailWidth: 480, thumbnailHeight: 360)])
            let edited = try store.editPost(id: 1, ofUserID: 1, PostEdit(title: "Old", content: "t", contentHTML: "<p>t</p>"),
                                            weight: 5, at: Date())
            #expect(edited?.record.contentHTML == "<p>t</p>")
        }
    }

    /// A photo's name is 32 lowercase hex digits (it becomes a file name),
    /// its sizes are positive, and it is an existing user's.
    @Test func photoConstraintsHold() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let stamp = "2027-01-15 08:00:00.000"
            try store.pool.write { db in
                try db.execute(sql: "INSERT INTO users (name, password_hash, created_at) VALUES ('alice', 'h', ?)", arguments: [stamp])
            }
            func photo(_ name: String, user: Int = 1, width: Int = 1) -> Bool {
                do {
                    try store.pool.write { db in
                        try db.execute(sql: """
                            INSERT INTO photos (name, user_id, image, thumbnail, width, height, thumbnail_width,
                                                thumbnail_height, created_at)
                            VALUES (?, ?, x'FFD8FFD9', x'FFD8FFD9', ?, 1, 1, 1, ?)
                            """, arguments: [name, user, width, stamp])
                    }
                    return true
                } catch { return false }
            }
            let good = String(repeating: "0123456789abcdef", count: 2)
            #expect(!photo(good.uppercased()), "lowercase only")
            #expect(!photo(String(good.dropLast())), "32 digits")
            #expect(!photo(String(good.dropLast()) + "/"), "hex only")
            #expect(!photo(good, width: 0), "positive sizes")
            #expect(!photo(good, user: 99), "foreign key")
            #expect(photo(good))
            #expect(!photo(good), "unique")
        }
    }

    @Test func constraintsHold() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
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
            func post(_ values: String) -> String {
                "INSERT INTO posts (user_id, title, content, created_at, page, weight) VALUES (\(values))"
            }
            #expect(fails(post("999, 't', 'c', '\(stamp)', 1, 0")), "foreign key")
            #expect(fails(post("1, '', 'c', '\(stamp)', 1, 0")))
            #expect(fails(post("1, '\(String(repeating: "t", count: 201))', 'c', '\(stamp)', 1, 0")))
            #expect(fails(post("1, 't', NULL, '\(stamp)', 1, 0")))
            #expect(fails(post("1, 't', '', '\(stamp)', 0, 0")), "pages count from 1")
            #expect(fails(post("1, 't', '', '\(stamp)', 1, -1")))
            #expect(fails("INSERT INTO posts (user_id, title, content, created_at) VALUES (1, 't', '', '\(stamp)')"), "page and weight are required")
            #expect(!fails(post("1, 't', '', '\(stamp)', 1, 0")))

            // Deleting a user deletes their posts.
            try store.pool.write { try $0.execute(sql: "DELETE FROM users WHERE name = 'ALICE'") }
            #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM posts") } == 0)
        }
    }

    @Test func storedTimesAreUTCText() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let store = try SQLiteStore(path: folder.appendingPathComponent("blog.sqlite").path)
            defer { try? store.close() }
            let user = try store.createUser(name: "alice", passwordHash: "h", at: Date(timeIntervalSince1970: 1_800_000_000.25))
            _ = try store.addPost(userID: user.id, title: "t", content: "c", at: Date(timeIntervalSince1970: 1_800_000_001.5))
            let users = try store.pool.read { try String.fetchAll($0, sql: "SELECT created_at FROM users") }
            let posts = try store.pool.read { try String.fetchAll($0, sql: "SELECT created_at FROM posts") }
            // schema.sql: 'YYYY-MM-DD HH:MM:SS.SSS', UTC.
            #expect(users == ["2027-01-15 08:00:00.250"])
            #expect(posts == ["2027-01-15 08:00:01.500"])
        }
    }

    /// A database of the first release (posts without page groups) is
    /// brought up to date: each post gets the group the layout would have
    /// chosen, as if posted one after another.
    @Test func databaseWithoutPageGroupsIsUpgraded() throws {
        try withTemporaryFolder { (folder: URL) throws in
            let path = folder.appendingPathComponent("old.sqlite").path
            let old = try DatabaseQueue(path: path)
            try old.write { db in
                try db.execute(sql: """
                    CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL COLLATE NOCASE UNIQUE,
                        password_hash TEXT NOT NULL, created_at TEXT NOT NULL);
                    CREATE TABLE posts (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        title TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL);
                    CREATE INDEX posts_by_user ON posts(user_id, id);
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1');
                    INSERT INTO users VALUES (1, 'alice', 'h', '2027-01-15 08:00:00.000'), (2, 'bob', 'h', '2027-01-15 08:00:00.000');
                    """)
                for index in 1...7 {
                    try db.execute(sql: "INSERT INTO posts (user_id, title, content, created_at) VALUES (?, ?, '<br>', '2027-01-15 08:00:00.000')",
                                   arguments: [index % 2 + 1, "t\(index)"])
                }
            }
            try old.close()
            let store = try SQLiteStore(path: path, layout: PageLayout(pageSize: 2))
            defer { try? store.close() }
            let rows = try store.pool.read { try Row.fetchAll($0, sql: "SELECT user_id, page, weight FROM posts ORDER BY id") }
            #expect(rows.map { $0["page"] as Int } == [1, 1, 1, 1, 2, 2, 2], "bob: 1, 3, 5 | alice: 2, 4, 6 | ...")
            #expect(rows.allSatisfy { ($0["weight"] as Int) == PageRenderer.weight(title: "t1", content: "<br>") })
            #expect(try store.pageGroups(ofUserID: 2, limit: nil) == [PageGroup(page: 2, count: 2, weight: 2 * rows[0]["weight"]),
                                                                      PageGroup(page: 1, count: 2, weight: 2 * rows[0]["weight"])])
            // New posts carry on from there.
            let next = try store.addPost(userID: 1, title: "t8", content: "", at: Date(), layout: PageLayout(pageSize: 2))
            #expect(next.page == 2, "alice had one post in group 2")
        }
    }
}
