import BlogModel
import GRDB

/// The database schema; `schema.sql` at the top of the repository is the
/// same text, and `SchemaTests` fails if the two ever drift apart.
enum Schema {
    static let version1 = """
        CREATE TABLE users (
            id            INTEGER PRIMARY KEY,
            name          TEXT    NOT NULL COLLATE NOCASE UNIQUE
                                  CHECK (length(name) BETWEEN 1 AND 32),
            password_hash TEXT    NOT NULL CHECK (password_hash <> ''),
            created_at    TEXT    NOT NULL
        );

        CREATE TABLE posts (
            id         INTEGER PRIMARY KEY,
            user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            title      TEXT    NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
            content    TEXT    NOT NULL,
            created_at TEXT    NOT NULL,
            page       INTEGER NOT NULL CHECK (page >= 1),
            weight     INTEGER NOT NULL CHECK (weight >= 0)
        );

        CREATE INDEX posts_by_user ON posts(user_id, page, id, weight);
        """

    /// Login state that instances share and a restart keeps.
    static let version3 = """
        CREATE TABLE leases (
            user_key   TEXT NOT NULL,
            address    TEXT NOT NULL,
            expires_at REAL NOT NULL,
            PRIMARY KEY (user_key, address)
        ) WITHOUT ROWID;

        CREATE TABLE login_failures (
            user_key      TEXT    NOT NULL,
            address       TEXT    NOT NULL,
            failures      INTEGER NOT NULL,
            first_failure REAL    NOT NULL,
            locked_until  REAL,
            PRIMARY KEY (user_key, address)
        ) WITHOUT ROWID;
        """

    /// What the index and the moderation need: each user's post count and
    /// newest post kept with the user (so listing the blogs does not
    /// aggregate over every user), edits, suspensions.
    /// Posts are made again with AUTOINCREMENT: a deleted post's id is
    /// never given to another (its URL answers 410 Gone for good, and feed
    /// readers know entries by it); plain rowids reuse the largest.
    static let version4 = """
        ALTER TABLE posts RENAME TO posts_old;
        CREATE TABLE posts (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            title      TEXT    NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
            content    TEXT    NOT NULL,
            created_at TEXT    NOT NULL,
            page       INTEGER NOT NULL CHECK (page >= 1),
            weight     INTEGER NOT NULL CHECK (weight >= 0),
            updated_at TEXT
        );
        INSERT INTO posts (id, user_id, title, content, created_at, page, weight)
            SELECT id, user_id, title, content, created_at, page, weight FROM posts_old;
        DROP TABLE posts_old;
        CREATE INDEX posts_by_user ON posts(user_id, page, id, weight);
        CREATE TABLE deleted_posts (
            id         INTEGER PRIMARY KEY,
            user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            deleted_at TEXT    NOT NULL
        );
        CREATE INDEX deleted_posts_by_user ON deleted_posts(user_id);
        ALTER TABLE users ADD COLUMN post_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE users ADD COLUMN last_post_id INTEGER;
        ALTER TABLE users ADD COLUMN last_post_at TEXT;
        ALTER TABLE users ADD COLUMN suspended_at TEXT;
        UPDATE users SET
            post_count = (SELECT COUNT(*) FROM posts WHERE user_id = users.id),
            (last_post_id, last_post_at) = (SELECT id, created_at FROM posts WHERE user_id = users.id
                                            ORDER BY page DESC, id DESC LIMIT 1);
        CREATE INDEX users_by_activity ON users(last_post_at, id);
        """

    /// The posts' index covers what the page writer reads of the newest
    /// posts (`updated_at` versions a rendered post): after every commit
    /// a reader's page cache starts empty, and a look-up in the table per
    /// post was most of a post's database time.
    static let version5 = """
        DROP INDEX posts_by_user;
        CREATE INDEX posts_by_user ON posts(user_id, page, id, weight, updated_at);
        """

    /// Every change to a user's posts counts in `posts_version`, in the
    /// change's own transaction: the page writer keeps each blog's newest
    /// posts in memory and needs one row, not fifty, to know they are
    /// still what the database holds (`NewestPostsCache`).
    static let version6 = """
        ALTER TABLE users ADD COLUMN posts_version INTEGER NOT NULL DEFAULT 0;
        """

    /// Where a post was written (`geopost`), as the client sent the
    /// decimal degrees: both or neither.
    static let version7 = """
        ALTER TABLE posts ADD COLUMN latitude TEXT;
        ALTER TABLE posts ADD COLUMN longitude TEXT CHECK ((latitude IS NULL) = (longitude IS NULL));
        """

    /// The map page reads a blog's placed posts with every feed write: a
    /// partial index finds them without walking the blog's other posts
    /// (88 ms a read for a blog of 200,000 posts without a place, 0.04 ms
    /// with it).
    static let version8 = """
        CREATE INDEX posts_placed ON posts(user_id, page, id) WHERE latitude IS NOT NULL;
        """

    /// Access tokens: web sessions and bearer tokens. Only a secret's
    /// SHA-256 is kept, so a copy of the file opens no session; a user's
    /// tokens go with the user. AUTOINCREMENT: a revoked token's id (what
    /// `blogd revoke-token` takes) never comes back as another token's.
    static let version9 = """
        CREATE TABLE access_tokens (
            id          INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            secret_hash TEXT    NOT NULL UNIQUE CHECK (length(secret_hash) = 64),
            kind        TEXT    NOT NULL CHECK (kind IN ('session', 'bearer')),
            scopes      TEXT    NOT NULL,
            label       TEXT    NOT NULL,
            created_at  TEXT    NOT NULL,
            expires_at  TEXT
        );
        CREATE INDEX access_tokens_by_user ON access_tokens(user_id, id);
        CREATE INDEX access_tokens_by_expiry ON access_tokens(expires_at);
        """

    /// Photos: uploaded before the post that shows them, attached by the
    /// post's insert. The bytes are kept here, the source of truth (the
    /// files in the public folder are derived, and the start-up check
    /// writes missing ones again). A post keeps its photos' names and sizes
    /// in `posts.photos` (`name:w:h:tw:th`, space separated), so that every
    /// read of posts has them without a join. A photo goes with its user,
    /// and with its post (the store deals with it first anyway). A plain
    /// rowid table: a row holds a whole image, and WITHOUT ROWID suits
    /// small rows only.
    static let version10 = """
        ALTER TABLE posts ADD COLUMN photos TEXT NOT NULL DEFAULT '';
        CREATE TABLE photos (
            name             TEXT    NOT NULL PRIMARY KEY
                                     CHECK (length(name) = 32 AND name NOT GLOB '*[^0-9a-f]*'),
            user_id          INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            post_id          INTEGER REFERENCES posts(id) ON DELETE CASCADE,
            image            BLOB    NOT NULL,
            thumbnail        BLOB    NOT NULL,
            width            INTEGER NOT NULL CHECK (width > 0),
            height           INTEGER NOT NULL CHECK (height > 0),
            thumbnail_width  INTEGER NOT NULL CHECK (thumbnail_width > 0),
            thumbnail_height INTEGER NOT NULL CHECK (thumbnail_height > 0),
            created_at       TEXT    NOT NULL
        );
        CREATE INDEX photos_by_user ON photos(user_id);
        CREATE INDEX photos_by_post ON photos(post_id);
        CREATE INDEX photos_unattached ON photos(created_at) WHERE post_id IS NULL;
        """

    /// The trash: a post its author deletes keeps its row here (and its
    /// photos their bytes, marked with `trashed_post_id`, on no post) until
    /// it is restored or purged; `deleted_posts` holds its tombstone all the
    /// while. Purging deletes the row, and its photos by cascade.
    static let version11 = """
        CREATE TABLE trashed_posts (
            id         INTEGER PRIMARY KEY,
            user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            title      TEXT    NOT NULL,
            content    TEXT    NOT NULL,
            created_at TEXT    NOT NULL,
            page       INTEGER NOT NULL,
            weight     INTEGER NOT NULL,
            updated_at TEXT,
            latitude   TEXT,
            longitude  TEXT,
            photos     TEXT    NOT NULL,
            trashed_at TEXT    NOT NULL
        );
        CREATE INDEX trashed_posts_by_user ON trashed_posts(user_id, trashed_at);
        CREATE INDEX trashed_posts_by_time ON trashed_posts(trashed_at);
        ALTER TABLE photos ADD COLUMN trashed_post_id INTEGER REFERENCES trashed_posts(id) ON DELETE CASCADE;
        CREATE INDEX photos_by_trashed_post ON photos(trashed_post_id);
        """

    /// Values chosen once for the whole site and kept, such as the
    /// authority of the feeds' ids (see `FeedIdentity`).
    static let siteValues = """
        CREATE TABLE site_values (
            key   TEXT NOT NULL PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        """

    /// The HTML a post's text was derived from, as a Micropub client sent
    /// it (`{"html": …}`): kept beside the text, never rendered, so that
    /// `q=source` gives back what was sent. NULL for plain text.
    static let contentHTML = """
        ALTER TABLE posts ADD COLUMN content_html TEXT;
        ALTER TABLE trashed_posts ADD COLUMN content_html TEXT;
        """

    /// IndieAuth authorization codes, from the user's approval until the
    /// app trades the code for a token (a minute at most). Only the code's
    /// SHA-256 is kept; a used code stays, marked, until it expires, so a
    /// second use is known as one (and the token it got can be revoked).
    static let authorizationCodes = """
        CREATE TABLE authorization_codes (
            code_hash      TEXT    NOT NULL UNIQUE CHECK (length(code_hash) = 64),
            user_id        INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            client_id      TEXT    NOT NULL,
            redirect_uri   TEXT    NOT NULL,
            scopes         TEXT    NOT NULL,
            code_challenge TEXT    NOT NULL,
            created_at     TEXT    NOT NULL,
            expires_at     TEXT    NOT NULL,
            used_at        TEXT,
            token_id       INTEGER
        );
        CREATE INDEX authorization_codes_by_expiry ON authorization_codes(expires_at);
        CREATE INDEX authorization_codes_by_user ON authorization_codes(user_id);
        """

    /// Each blog's own settings (`BlogSettings`), one row per user that set
    /// any, NULL for a field unset; the CHECKs hold the lengths the
    /// settings' rules give, in code points as `BlogSettings` counts them.
    static let blogSettings = """
        CREATE TABLE blog_settings (
            user_id      INTEGER NOT NULL PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            title        TEXT    CHECK (length(title) BETWEEN 1 AND 100),
            description  TEXT    CHECK (length(description) BETWEEN 1 AND 300),
            author_name  TEXT    CHECK (length(author_name) BETWEEN 1 AND 100),
            author_photo TEXT    CHECK (length(author_photo) BETWEEN 1 AND 200),
            updated_at   TEXT    NOT NULL
        );
        """

    /// Webmentions to send (`WebmentionOutbox`): one row a post and a URL
    /// its text links (or linked) to, queued in the post's own commit.
    /// `due_at` is in milliseconds since 1970 (0: at once); `version` goes
    /// up when the row is queued again, so a claim finishes only its own.
    static let webmentionOutbox = """
        CREATE TABLE webmention_outbox (
            id       INTEGER PRIMARY KEY AUTOINCREMENT,
            post_id  INTEGER NOT NULL,
            user_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            target   TEXT    NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            version  INTEGER NOT NULL DEFAULT 1,
            due_at   INTEGER NOT NULL DEFAULT 0,
            UNIQUE (post_id, target)
        );
        CREATE INDEX webmention_outbox_by_due ON webmention_outbox(due_at, id);
        """

    /// Received Webmentions (`WebmentionStorage`): one row per post and
    /// source, queued until verified, shown once approved. Text only.
    static let webmentions = """
        CREATE TABLE webmentions (
            id              INTEGER PRIMARY KEY,
            user_id         INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            post_id         INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
            source          TEXT    NOT NULL,
            target          TEXT    NOT NULL,
            status          TEXT    NOT NULL CHECK (status IN ('queued', 'verified')),
            approved        INTEGER NOT NULL DEFAULT 0,
            received_at     TEXT    NOT NULL,
            attempts        INTEGER NOT NULL DEFAULT 0,
            next_attempt_at TEXT    NOT NULL,
            verified_at     TEXT,
            kind            TEXT    NOT NULL DEFAULT 'mention' CHECK (kind IN ('reply', 'like', 'repost', 'mention')),
            author_name     TEXT    NOT NULL DEFAULT '',
            author_url      TEXT    NOT NULL DEFAULT '',
            author_photo    TEXT    NOT NULL DEFAULT '',
            title           TEXT    NOT NULL DEFAULT '',
            content         TEXT    NOT NULL DEFAULT '',
            UNIQUE (post_id, source)
        );
        CREATE INDEX webmentions_due ON webmentions(next_attempt_at) WHERE status = 'queued';
        CREATE INDEX webmentions_by_user ON webmentions(user_id, id);
        CREATE INDEX webmentions_shown ON webmentions(post_id, id) WHERE approved = 1 AND verified_at IS NOT NULL;
        """

    /// The migrations, in order. `layout` groups the posts of a database
    /// made before posts had page groups.
    static func migrator(layout: PageLayout) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: version1)
        }
        migrator.registerMigration("v2-page-groups") { db in
            try PageGroupUpgrade.run(db, layout: layout)
        }
        migrator.registerMigration("v3-login-state") { db in
            try db.execute(sql: version3)
        }
        migrator.registerMigration("v4-index-edits-suspensions") { db in
            try db.execute(sql: version4)
        }
        migrator.registerMigration("v5-covering-post-index") { db in
            try db.execute(sql: version5)
        }
        migrator.registerMigration("v6-posts-version") { db in
            try db.execute(sql: version6)
        }
        migrator.registerMigration("v7-places") { db in
            try db.execute(sql: version7)
        }
        migrator.registerMigration("v8-placed-post-index") { db in
            try db.execute(sql: version8)
        }
        migrator.registerMigration("v9-access-tokens") { db in
            try db.execute(sql: version9)
        }
        migrator.registerMigration("v10-photos") { db in
            try db.execute(sql: version10)
        }
        migrator.registerMigration("v11-trash") { db in
            try db.execute(sql: version11)
        }
        migrator.registerMigration("v12-site-values") { db in
            try db.execute(sql: siteValues)
        }
        migrator.registerMigration("v13-content-html") { db in
            try db.execute(sql: contentHTML)
        }
        migrator.registerMigration("v14-authorization-codes") { db in
            try db.execute(sql: authorizationCodes)
        }
        migrator.registerMigration("v15-blog-settings") { db in
            try db.execute(sql: blogSettings)
        }
        migrator.registerMigration("v16-webmention-outbox") { db in
            try db.execute(sql: webmentionOutbox)
        }
        migrator.registerMigration("v17-tags") { db in
            try db.execute(sql: tags)
            try tagExistingPosts(db)
        }
        migrator.registerMigration("v18-search") { db in
            try db.execute(sql: search)
        }
        migrator.registerMigration("v19-webmentions") { db in
            try db.execute(sql: webmentions)
        }
        migrator.registerMigration("v20-activitypub") { db in
            try db.execute(sql: activityPub)
        }
        migrator.registerMigration("v21-follow-answers") { db in
            try db.execute(sql: followAnswers)
        }
        migrator.registerMigration("v22-trashed-responses") { db in
            try db.execute(sql: trashedResponses)
        }
        migrator.registerMigration("v23-block-notices") { db in
            try db.execute(sql: blockNotices)
        }
        migrator.registerMigration("v24-fan-out-point") { db in
            try db.execute(sql: fanOutPoint)
        }
        migrator.registerMigration("v25-delivery-hosts") { db in
            try db.execute(sql: deliveryHosts)
        }
        migrator.registerMigration("v26-follower-targets") { db in
            try db.execute(sql: followerTargets)
        }
        return migrator
    }
}

/// Brings a database of the first release, whose posts had no page groups,
/// up to the current schema: adds `page` and `weight` and fills them in,
/// post by post in order, as they would have been chosen. On a database
/// that has them (every new one) it does nothing.
enum PageGroupUpgrade {
    static func run(_ db: Database, layout: PageLayout) throws {
        let columns = try db.columns(in: "posts").map(\.name)
        guard !columns.contains("page") else { return }
        try db.execute(sql: """
            ALTER TABLE posts ADD COLUMN page INTEGER NOT NULL DEFAULT 1 CHECK (page >= 1);
            ALTER TABLE posts ADD COLUMN weight INTEGER NOT NULL DEFAULT 0 CHECK (weight >= 0);
            DROP INDEX posts_by_user;
            CREATE INDEX posts_by_user ON posts(user_id, page, id, weight);
            """)
        var groups: [Int64: PageGroup] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, user_id, title, content FROM posts ORDER BY id") {
            let userID: Int64 = row["user_id"]
            let weight = layout.weigher.text(row["title"], row["content"])
            let last = groups[userID]
            let page = layout.page(forWeight: weight, after: last)
            var group = last?.page == page ? last! : PageGroup(page: page, count: 0, weight: 0)
            group.count += 1
            group.weight += weight
            groups[userID] = group
            try db.execute(sql: "UPDATE posts SET page = ?, weight = ? WHERE id = ?", arguments: [page, weight, row["id"] as Int64])
        }
    }
}
