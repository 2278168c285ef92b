import Logging
import PostgresNIO

/// The PostgreSQL schema and its migrator. `schema.postgres.sql` at the top
/// of the repository holds the same statements; a test fails if the two
/// drift apart, and another if migrating makes anything else.
public enum PostgresSchema {
    /// One step of the schema, applied once, in a transaction of its own.
    public struct Migration: Sendable {
        public let version: Int
        public let name: String
        public let sql: String
    }

    public static let migrations: [Migration] = [
        Migration(version: 1, name: "users and posts", sql: """
            CREATE TABLE users (
                id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                name          text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 32),
                password_hash text        NOT NULL CHECK (password_hash <> ''),
                created_at    timestamptz NOT NULL
            );

            CREATE UNIQUE INDEX users_name_key ON users (lower(name));

            CREATE TABLE posts (
                id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                user_id    bigint      NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                title      text        NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
                content    text        NOT NULL,
                created_at timestamptz NOT NULL,
                page       integer     NOT NULL CHECK (page >= 1),
                weight     integer     NOT NULL CHECK (weight >= 0)
            );

            CREATE INDEX posts_by_user ON posts (user_id, page, id, weight);
            """),
        Migration(version: 2, name: "leases and login failures", sql: """
            CREATE TABLE leases (
                user_key   text             NOT NULL,
                address    text             NOT NULL,
                expires_at double precision NOT NULL,
                PRIMARY KEY (user_key, address)
            );

            CREATE TABLE login_failures (
                user_key      text             NOT NULL,
                address       text             NOT NULL,
                failures      integer          NOT NULL,
                first_failure double precision NOT NULL,
                locked_until  double precision,
                PRIMARY KEY (user_key, address)
            );
            """),
        Migration(version: 3, name: "post tokens", sql: """
            -- A post's token: inserted with the post, or by a claim that settles an
            -- insert whose commit was not heard (post_id NULL: never stored).
            CREATE TABLE post_tokens (
                token      uuid        PRIMARY KEY,
                post_id    bigint,
                settled_at timestamptz NOT NULL DEFAULT now()
            );

            CREATE INDEX post_tokens_by_time ON post_tokens (settled_at);
            """),
        Migration(version: 4, name: "index counts, edits, suspensions", sql: """
            -- Each user's post count and newest post, kept with the user so that
            -- listing the blogs does not aggregate over every user.
            ALTER TABLE users ADD COLUMN post_count integer NOT NULL DEFAULT 0;
            ALTER TABLE users ADD COLUMN last_post_id bigint;
            ALTER TABLE users ADD COLUMN last_post_at timestamptz;
            ALTER TABLE users ADD COLUMN suspended_at timestamptz;
            ALTER TABLE posts ADD COLUMN updated_at timestamptz;
            -- Deleted posts, whose pages answer 410 Gone.
            CREATE TABLE deleted_posts (
                id         bigint      PRIMARY KEY,
                user_id    bigint      NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                deleted_at timestamptz NOT NULL
            );
            CREATE INDEX deleted_posts_by_user ON deleted_posts (user_id);
            UPDATE users SET
                post_count = (SELECT count(*) FROM posts WHERE user_id = users.id),
                (last_post_id, last_post_at) = (SELECT id, created_at FROM posts WHERE user_id = users.id
                                                ORDER BY page DESC, id DESC LIMIT 1);
            CREATE INDEX users_by_activity ON users (last_post_at DESC NULLS LAST, id DESC);
            """),
        Migration(version: 5, name: "places", sql: """
            -- Where a post was written (geopost), as the client sent the
            -- decimal degrees: both or neither.
            ALTER TABLE posts ADD COLUMN latitude text;
            ALTER TABLE posts ADD COLUMN longitude text;
            ALTER TABLE posts ADD CONSTRAINT posts_place CHECK ((latitude IS NULL) = (longitude IS NULL));
            """),
        Migration(version: 6, name: "placed post index", sql: """
            -- The map page reads a blog's placed posts with every feed write:
            -- found without walking the blog's other posts.
            CREATE INDEX posts_placed ON posts (user_id, page, id) WHERE latitude IS NOT NULL;
            """),
        Migration(version: 7, name: "access tokens", sql: """
            -- Web sessions and bearer tokens: only the SHA-256 of a secret
            -- (hex) is kept; expires_at NULL means until revoked. A user's
            -- tokens go with the user.
            CREATE TABLE access_tokens (
                id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                user_id     bigint      NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                secret_hash text        NOT NULL UNIQUE CHECK (char_length(secret_hash) = 64),
                kind        text        NOT NULL CHECK (kind IN ('session', 'bearer')),
                scopes      text        NOT NULL,
                label       text        NOT NULL,
                created_at  timestamptz NOT NULL,
                expires_at  timestamptz
            );
            CREATE INDEX access_tokens_by_user ON access_tokens (user_id, id);
            CREATE INDEX access_tokens_by_expiry ON access_tokens (expires_at);
            """),
        Migration(version: 8, name: "photos", sql: """
            -- Photos: uploaded before the post that shows them, attached by the
            -- post's insert; the bytes are kept here (the files in the public
            -- folder are derived, and the start-up check writes missing ones
            -- again). A post keeps its photos' names and sizes in photos
            -- (name:w:h:tw:th, space separated), so that every read of posts
            -- has them without a join. A photo goes with its user and its post.
            ALTER TABLE posts ADD COLUMN photos text NOT NULL DEFAULT '';
            CREATE TABLE photos (
                name             text        PRIMARY KEY CHECK (name ~ '^[0-9a-f]{32}$'),
                user_id          bigint      NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                post_id          bigint      REFERENCES posts(id) ON DELETE CASCADE,
                image            bytea       NOT NULL,
                thumbnail        bytea       NOT NULL,
                width            integer     NOT NULL CHECK (width > 0),
                height           integer     NOT NULL CHECK (height > 0),
                thumbnail_width  integer     NOT NULL CHECK (thumbnail_width > 0),
                thumbnail_height integer     NOT NULL CHECK (thumbnail_height > 0),
                created_at       timestamptz NOT NULL
            );
            -- JPEG does not compress: kept out of line without trying.
            ALTER TABLE photos ALTER COLUMN image SET STORAGE EXTERNAL;
            ALTER TABLE photos ALTER COLUMN thumbnail SET STORAGE EXTERNAL;
            CREATE INDEX photos_by_user ON photos (user_id);
            CREATE INDEX photos_by_post ON photos (post_id);
            CREATE INDEX photos_unattached ON photos (created_at) WHERE post_id IS NULL;
            """),
        Migration(version: 9, name: "trash", sql: """
            -- The trash: a post its author deletes moves here whole (its
            -- tombstone in deleted_posts) and its photos keep their bytes on
            -- no post, marked with trashed_post_id, until it is restored or
            -- purged (the row deleted, its photos by cascade).
            CREATE TABLE trashed_posts (
                id         bigint      PRIMARY KEY,
                user_id    bigint      NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                title      text        NOT NULL,
                content    text        NOT NULL,
                created_at timestamptz NOT NULL,
                page       integer     NOT NULL,
                weight     integer     NOT NULL,
                updated_at timestamptz,
                latitude   text,
                longitude  text,
                photos     text        NOT NULL,
                trashed_at timestamptz NOT NULL
            );
            CREATE INDEX trashed_posts_by_user ON trashed_posts (user_id, trashed_at);
            CREATE INDEX trashed_posts_by_time ON trashed_posts (trashed_at);
            ALTER TABLE photos ADD COLUMN trashed_post_id bigint REFERENCES trashed_posts(id) ON DELETE CASCADE;
            CREATE INDEX photos_by_trashed_post ON photos (trashed_post_id);
            """),
        Migration(version: 10, name: "site values", sql: """
            -- Values chosen once for the whole site and kept, such as the
            -- authority of the feeds' ids.
            CREATE TABLE site_values (
                key   text PRIMARY KEY,
                value text NOT NULL
            );
            """),
        Migration(version: 11, name: "html content", sql: """
            -- The HTML a post's text was derived from, as a Micropub client
            -- sent it: never rendered (the pages show content, escaped),
            -- NULL for plain text. A post's photos may carry alt text
            -- (name:w:h:tw:th:ALT, ALT percent-encoded).
            ALTER TABLE posts ADD COLUMN content_html text;
            ALTER TABLE trashed_posts ADD COLUMN content_html text;
            """),
        Migration(version: 12, name: "authorization codes", sql: """
            -- IndieAuth authorization codes, from the user's approval until the
            -- app trades the code for a token (a minute at most). Only the code's
            -- SHA-256 is kept; a used code stays, marked, until it expires, so a
            -- second use is known as one (and the token it got can be revoked).
            CREATE TABLE authorization_codes (
                code_hash      text        PRIMARY KEY CHECK (char_length(code_hash) = 64),
                user_id        bigint      NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                client_id      text        NOT NULL,
                redirect_uri   text        NOT NULL,
                scopes         text        NOT NULL,
                code_challenge text        NOT NULL,
                created_at     timestamptz NOT NULL,
                expires_at     timestamptz NOT NULL,
                used_at        timestamptz,
                token_id       bigint
            );
            CREATE INDEX authorization_codes_by_expiry ON authorization_codes (expires_at);
            CREATE INDEX authorization_codes_by_user ON authorization_codes (user_id);
            """),
        Migration(version: 13, name: "blog settings", sql: """
            -- Each blog's own settings (title, description, the author's
            -- display name and photo, a path in the public folder), one row
            -- per user that set any; NULL for a field unset. Lengths in
            -- characters (code points).
            CREATE TABLE blog_settings (
                user_id      bigint      PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                title        text        CHECK (char_length(title) BETWEEN 1 AND 100),
                description  text        CHECK (char_length(description) BETWEEN 1 AND 300),
                author_name  text        CHECK (char_length(author_name) BETWEEN 1 AND 100),
                author_photo text        CHECK (char_length(author_photo) BETWEEN 1 AND 200),
                updated_at   timestamptz NOT NULL
            );
            """),
        Migration(version: 14, name: "webmention outbox", sql: """
            -- Webmentions to send: one row a post and a URL its text links
            -- (or linked) to, queued in the post's own commit. due_at:
            -- milliseconds since 1970 (0: at once); version goes up when
            -- the row is queued again, so a claim finishes only its own.
            CREATE TABLE webmention_outbox (
                id       bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                post_id  bigint  NOT NULL,
                user_id  bigint  NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                target   text    NOT NULL,
                attempts integer NOT NULL DEFAULT 0,
                version  bigint  NOT NULL DEFAULT 1,
                due_at   bigint  NOT NULL DEFAULT 0,
                UNIQUE (post_id, target)
            );
            CREATE INDEX webmention_outbox_by_due ON webmention_outbox (due_at, id);
            """),
        Migration(version: 15, name: "tags", sql: PostgresSchema.tags),
        Migration(version: 16, name: "search", sql: PostgresSchema.search),
        Migration(version: 17, name: "webmentions", sql: """
            -- Received Webmentions: one row per post and source, queued until
            -- verified, shown once approved. Text only, never markup.
            CREATE TABLE webmentions (
                id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                user_id         bigint      NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                post_id         bigint      NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
                source          text        NOT NULL,
                target          text        NOT NULL,
                status          text        NOT NULL CHECK (status IN ('queued', 'verified')),
                approved        boolean     NOT NULL DEFAULT false,
                received_at     timestamptz NOT NULL,
                attempts        integer     NOT NULL DEFAULT 0,
                next_attempt_at timestamptz NOT NULL,
                verified_at     timestamptz,
                kind            text        NOT NULL DEFAULT 'mention' CHECK (kind IN ('reply', 'like', 'repost', 'mention')),
                author_name     text        NOT NULL DEFAULT '',
                author_url      text        NOT NULL DEFAULT '',
                author_photo    text        NOT NULL DEFAULT '',
                title           text        NOT NULL DEFAULT '',
                content         text        NOT NULL DEFAULT '',
                UNIQUE (post_id, source)
            );
            CREATE INDEX webmentions_due ON webmentions (next_attempt_at) WHERE status = 'queued';
            CREATE INDEX webmentions_by_user ON webmentions (user_id, id);
            CREATE INDEX webmentions_shown ON webmentions (post_id, id) WHERE approved AND verified_at IS NOT NULL;
            """),
        Migration(version: 18, name: "activitypub", sql: PostgresSchema.activityPub),
        Migration(version: 19, name: "follow-answers", sql: PostgresSchema.followAnswers),
        Migration(version: 20, name: "trashed responses", sql: PostgresSchema.trashedResponses),
        Migration(version: 21, name: "block-notices", sql: PostgresSchema.blockNotices),
        Migration(version: 22, name: "fan-out-point", sql: PostgresSchema.fanOutPoint),
        Migration(version: 23, name: "delivery-hosts", sql: PostgresSchema.deliveryHosts),
        Migration(version: 24, name: "follower-targets", sql: PostgresSchema.followerTargets),
    ]

    /// The statements of a script: split at each `;` that ends a line, with
    /// `--` comment lines dropped. (The schema has no `;` inside a statement;
    /// the extended protocol takes one statement at a time.)
    public static func statements(_ script: String) -> [String] {
        let lines = script.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingPrefix(while: \.isWhitespace).hasPrefix("--") }
        var statements: [String] = []
        var current: [Substring] = []
        for line in lines {
            current.append(line)
            if line.trimmingSuffix(while: \.isWhitespace).hasSuffix(";") {
                statements.append(current.joined(separator: "\n").trimmed)
                current = []
            }
        }
        let last = current.joined(separator: "\n").trimmed
        if !last.isEmpty { statements.append(last) }
        return statements
    }

    /// Applies every migration `connection`'s database lacks, in order, and
    /// returns their versions. Each runs in a transaction that first takes
    /// the migration lock, so instances starting together wait for each
    /// other and the second finds the work done.
    @discardableResult
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> [Int] {
        var applied: [Int] = []
        for migration in migrations {
            let ran = try await connection.inTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(AdvisoryLock.migrationSpace), 0)", logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: bookkeeping), logger: logger)
                let done = try await connection.query(
                    "SELECT version FROM schema_migrations WHERE version = \(migration.version)", logger: logger)
                    .collect()
                guard done.isEmpty else { return false }
                for statement in statements(migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
                return true
            }
            if ran { applied.append(migration.version) }
        }
        return applied
    }

    /// The migrator's own table: which versions are applied, and when.
    static let bookkeeping = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version    integer     PRIMARY KEY,
            name       text        NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """
}

extension StringProtocol {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> SubSequence {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }

    fileprivate var trimmed: String {
        String(trimmingPrefix(while: \.isWhitespace).trimmingSuffix(while: \.isWhitespace))
    }
}

extension PostgresConnection {
    /// Runs `body` in a transaction: committed when it returns, rolled back
    /// when it throws (its own error is rethrown, not a wrapper).
    func inTransaction<T>(logger: Logger, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await query("BEGIN", logger: logger)
        let value: T
        do {
            value = try await body(self)
        } catch {
            _ = try? await query("ROLLBACK", logger: logger)
            throw error
        }
        // A failed COMMIT rolls the transaction back in the server.
        try await query("COMMIT", logger: logger)
        return value
    }
}
