-- The blogd database: users and their posts.
-- The program creates exactly this schema through its migrations
-- (Sources/BlogSQLite/Schema.swift); a test proves the two agree. The
-- users table reads as SQLite keeps it after migration 4 added columns.
-- Times are UTC text, 'YYYY-MM-DD HH:MM:SS.SSS'.
-- A post's page is its page group (1 = oldest), chosen when it is stored;
-- its weight is its escaped title and text in bytes, with its photos'
-- markup (see PageLayout).
-- Post ids are AUTOINCREMENT: a deleted post's id (its URL, its feed
-- entry) never goes to another post. deleted_posts keeps the deleted ones,
-- whose pages answer 410 Gone.
-- Each user keeps its post count and newest post (post_count, last_post_id,
-- last_post_at) so that the index of blogs reads at most its length of rows.
-- posts_version counts every change to a user's posts (insert, edit,
-- delete): the server's in-memory copy of a blog's newest posts is good
-- while it matches. A change made by hand must add one to it.
-- A post's place (geopost) is its latitude and longitude as the client sent
-- them, decimal text: both or neither.
-- Leases and failed logins are shared by every instance on the database;
-- their times are seconds since 1970.
-- Access tokens (web sessions, bearer tokens) keep only the SHA-256 of their
-- secret, in hex; expires_at NULL means until revoked. Their ids are
-- AUTOINCREMENT: a revoked token's id never names another token.
-- Photos keep their bytes here (the files in the public folder are derived
-- from them, as the pages are from the posts), with a random name of 32 hex
-- digits; post_id is NULL until a post takes them. A post keeps its photos'
-- names and sizes in posts.photos ('name:w:h:tw:th', then ':ALT' when the
-- post gives it alt text, percent-encoded; space separated, in the post's
-- order; '' for none), so that reading posts needs no join.
-- content_html is the HTML a post's text was derived from, as a Micropub
-- client sent it; never rendered (the pages show content, escaped), NULL
-- for plain text.
-- The trash: a post its author deletes moves, whole, to trashed_posts (its
-- tombstone in deleted_posts, its page 410) and its photos keep their bytes
-- on no post, marked with trashed_post_id, until it is restored or purged
-- (the row deleted, its photos by cascade). The writer runs with
-- secure_delete on, so purged text does not linger in freed pages.
-- Tags: posts.categories keeps the tags given beside a post's text
-- (Micropub category, the web form's field; space separated, lower case);
-- its text's hashtags are tags too (the rule: Sources/BlogModel/Hashtags.swift).
-- post_tags holds every tag of every post, written in the transaction that
-- writes the post (insert, edit, restore), gone with it by cascade.
-- Search: posts_search is an FTS5 index of the posts' titles, texts and
-- blog ('u' and the user's id), its content read through the view
-- posts_search_source (external content), kept in step by triggers.

CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    name          TEXT    NOT NULL COLLATE NOCASE UNIQUE
                          CHECK (length(name) BETWEEN 1 AND 32),
    password_hash TEXT    NOT NULL CHECK (password_hash <> ''),
    created_at    TEXT    NOT NULL
, post_count INTEGER NOT NULL DEFAULT 0, last_post_id INTEGER, last_post_at TEXT, suspended_at TEXT, posts_version INTEGER NOT NULL DEFAULT 0);

CREATE TABLE posts (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    title      TEXT    NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
    content    TEXT    NOT NULL,
    created_at TEXT    NOT NULL,
    page       INTEGER NOT NULL CHECK (page >= 1),
    weight     INTEGER NOT NULL CHECK (weight >= 0),
    updated_at TEXT
, latitude TEXT, longitude TEXT CHECK ((latitude IS NULL) = (longitude IS NULL)), photos TEXT NOT NULL DEFAULT '', content_html TEXT, categories TEXT NOT NULL DEFAULT '');

CREATE INDEX posts_by_user ON posts(user_id, page, id, weight, updated_at);
CREATE INDEX posts_placed ON posts(user_id, page, id) WHERE latitude IS NOT NULL;

CREATE TABLE deleted_posts (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    deleted_at TEXT    NOT NULL
);

CREATE INDEX deleted_posts_by_user ON deleted_posts(user_id);

CREATE INDEX users_by_activity ON users(last_post_at, id);

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
, trashed_post_id INTEGER REFERENCES trashed_posts(id) ON DELETE CASCADE);

CREATE INDEX photos_by_user ON photos(user_id);
CREATE INDEX photos_by_post ON photos(post_id);
CREATE INDEX photos_unattached ON photos(created_at) WHERE post_id IS NULL;
CREATE INDEX photos_by_trashed_post ON photos(trashed_post_id);

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
, content_html TEXT, categories TEXT NOT NULL DEFAULT '');

CREATE INDEX trashed_posts_by_user ON trashed_posts(user_id, trashed_at);
CREATE INDEX trashed_posts_by_time ON trashed_posts(trashed_at);

-- Values chosen once for the whole site and kept, such as the authority
-- of the feeds' ids.
CREATE TABLE site_values (
    key   TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- IndieAuth authorization codes, from the user's approval until the app
-- trades the code for a token (a minute at most). Only the code's SHA-256
-- is kept; a used code stays, marked, until it expires, so a second use is
-- known as one (and the token it got can be revoked).
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

-- Each blog's own settings (title, description, the author's display name
-- and photo, a path in the public folder), one row per user that set any;
-- NULL for a field unset. Lengths in characters (code points).
CREATE TABLE blog_settings (
    user_id      INTEGER NOT NULL PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    title        TEXT    CHECK (length(title) BETWEEN 1 AND 100),
    description  TEXT    CHECK (length(description) BETWEEN 1 AND 300),
    author_name  TEXT    CHECK (length(author_name) BETWEEN 1 AND 100),
    author_photo TEXT    CHECK (length(author_photo) BETWEEN 1 AND 200),
    updated_at   TEXT    NOT NULL
);

-- Webmentions to send: one row a post and a URL its text links (or
-- linked) to, queued in the post's own commit. due_at: milliseconds since
-- 1970 (0: at once); version goes up when the row is queued again.
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

CREATE TABLE post_tags (
    post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
    tag     TEXT    NOT NULL CHECK (length(tag) BETWEEN 1 AND 256),
    user_id INTEGER NOT NULL,
    PRIMARY KEY (post_id, tag)
) WITHOUT ROWID;
CREATE INDEX post_tags_by_tag ON post_tags(tag, post_id);
CREATE INDEX post_tags_by_blog ON post_tags(user_id, tag, post_id);

CREATE VIEW posts_search_source AS SELECT id, title, content, 'u' || user_id AS blog FROM posts;
CREATE VIRTUAL TABLE posts_search USING fts5(title, content, blog, content='posts_search_source', content_rowid='id');
CREATE TRIGGER posts_search_insert AFTER INSERT ON posts BEGIN
    INSERT INTO posts_search (rowid, title, content, blog) VALUES (new.id, new.title, new.content, 'u' || new.user_id);
END;
CREATE TRIGGER posts_search_delete AFTER DELETE ON posts BEGIN
    INSERT INTO posts_search (posts_search, rowid, title, content, blog)
    VALUES ('delete', old.id, old.title, old.content, 'u' || old.user_id);
END;
CREATE TRIGGER posts_search_update AFTER UPDATE OF title, content, user_id ON posts BEGIN
    INSERT INTO posts_search (posts_search, rowid, title, content, blog)
    VALUES ('delete', old.id, old.title, old.content, 'u' || old.user_id);
    INSERT INTO posts_search (rowid, title, content, blog) VALUES (new.id, new.title, new.content, 'u' || new.user_id);
END;

-- Received Webmentions: one row per post and source, queued until
-- verified, shown once approved. Text only, never markup.
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

-- ActivityPub: each blog's key pair (PEM), its followers, its blocks, the
-- delivery queue (activities queued in the post's own commit; deliveries
-- made from them by the fan-out, one per inbox, with the JSON to send),
-- and the responses from the fediverse kept with the received Webmentions.
-- Times in milliseconds since 1970.
CREATE TABLE actor_keys (
    user_id     INTEGER NOT NULL PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    public_pem  TEXT    NOT NULL,
    private_pem TEXT    NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE TABLE followers (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    actor_id     TEXT    NOT NULL,
    inbox        TEXT    NOT NULL,
    shared_inbox TEXT,
    host         TEXT    NOT NULL,
    follow_id    TEXT    NOT NULL,
    state        TEXT    NOT NULL CHECK (state IN ('pending', 'accepted')),
    created_at   INTEGER NOT NULL,
    UNIQUE (user_id, actor_id)
);
CREATE INDEX followers_by_user ON followers(user_id, state, id);
CREATE INDEX followers_by_actor ON followers(actor_id);
CREATE INDEX followers_by_target ON followers(user_id, state, coalesce(shared_inbox, inbox));
CREATE TABLE actor_blocks (
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT    NOT NULL CHECK (kind IN ('actor', 'domain')),
    value      TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, kind, value)
) WITHOUT ROWID;
CREATE TABLE activity_queue (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    post_id   INTEGER NOT NULL,
    kind      TEXT    NOT NULL CHECK (kind IN ('create', 'update', 'delete')),
    queued_at INTEGER NOT NULL
);
CREATE TABLE activity_deliveries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    activity_id INTEGER NOT NULL,
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    post_id     INTEGER NOT NULL,
    inbox       TEXT    NOT NULL,
    host        TEXT    NOT NULL,
    body        TEXT    NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    due_at      INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    UNIQUE (activity_id, inbox)
);
CREATE INDEX activity_deliveries_by_due ON activity_deliveries(due_at, id);
CREATE INDEX activity_deliveries_by_post ON activity_deliveries(post_id);
CREATE TABLE activity_delivery_totals (
    name  TEXT    NOT NULL PRIMARY KEY,
    total INTEGER NOT NULL
) WITHOUT ROWID;
ALTER TABLE webmentions ADD COLUMN origin TEXT NOT NULL DEFAULT 'webmention'
    CHECK (origin IN ('webmention', 'activitypub'));
ALTER TABLE webmentions ADD COLUMN actor_id TEXT;
ALTER TABLE webmentions ADD COLUMN actor_host TEXT;
CREATE INDEX webmentions_by_actor ON webmentions(actor_id) WHERE actor_id IS NOT NULL;
CREATE INDEX webmentions_by_remote_source ON webmentions(source) WHERE origin = 'activitypub';
-- The answers to follows (v21): an Accept or Reject of a Follow is a
-- delivery of its own kind, to the follower's inbox, with no post
-- (post_id 0) and a negative activity_id (a hash of the blog, the kind
-- and the Follow's id: the same answer twice is one delivery). A blog
-- may approve its followers by hand (approve_followers = 1).
ALTER TABLE activity_deliveries ADD COLUMN kind TEXT NOT NULL DEFAULT 'post'
    CHECK (kind IN ('post', 'accept', 'reject'));
ALTER TABLE blog_settings ADD COLUMN approve_followers INTEGER NOT NULL DEFAULT 0
    CHECK (approve_followers IN (0, 1));

-- A trashed post keeps its responses (v22): a received Webmention or
-- fediverse response leaves its post for trashed_post_id while the post
-- is in the trash (as its photos do), and comes back on restore; purging
-- takes it by cascade. post_id may be NULL now, so the migration makes
-- the table again (its rows copied, ids kept): this is its final form.
DROP TABLE webmentions;
CREATE TABLE webmentions (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    post_id         INTEGER REFERENCES posts(id) ON DELETE CASCADE,
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
    origin          TEXT    NOT NULL DEFAULT 'webmention' CHECK (origin IN ('webmention', 'activitypub')),
    actor_id        TEXT,
    actor_host      TEXT,
    trashed_post_id INTEGER REFERENCES trashed_posts(id) ON DELETE CASCADE,
    CHECK ((post_id IS NULL) <> (trashed_post_id IS NULL)),
    UNIQUE (post_id, source)
);
CREATE INDEX webmentions_due ON webmentions(next_attempt_at) WHERE status = 'queued';
CREATE INDEX webmentions_by_user ON webmentions(user_id, id);
CREATE INDEX webmentions_shown ON webmentions(post_id, id) WHERE approved = 1 AND verified_at IS NOT NULL;
CREATE INDEX webmentions_by_actor ON webmentions(actor_id) WHERE actor_id IS NOT NULL;
CREATE INDEX webmentions_by_remote_source ON webmentions(source) WHERE origin = 'activitypub';
CREATE INDEX webmentions_by_trashed_post ON webmentions(trashed_post_id) WHERE trashed_post_id IS NOT NULL;

-- Block notices (v23): a Block sent to an actor a blog blocks (one that
-- followed it: its inbox is known), and the Undo of it on unblocking,
-- are deliveries of their own kind; the block keeps the inbox its Block
-- went to. SQLite cannot widen a CHECK in place: the deliveries' table
-- is made anew, with its rows, ids and id sequence, as the migration does.
ALTER TABLE actor_blocks ADD COLUMN inbox TEXT;
CREATE TABLE activity_deliveries_v23 (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    activity_id INTEGER NOT NULL,
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    post_id     INTEGER NOT NULL,
    inbox       TEXT    NOT NULL,
    host        TEXT    NOT NULL,
    body        TEXT    NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    due_at      INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    kind        TEXT    NOT NULL DEFAULT 'post'
        CHECK (kind IN ('post', 'accept', 'reject', 'block', 'unblock')),
    UNIQUE (activity_id, inbox)
);
INSERT INTO activity_deliveries_v23 (id, activity_id, user_id, post_id, inbox, host, body, attempts, due_at,
                                     created_at, kind)
    SELECT id, activity_id, user_id, post_id, inbox, host, body, attempts, due_at, created_at, kind
    FROM activity_deliveries;
DELETE FROM sqlite_sequence WHERE name = 'activity_deliveries_v23';
INSERT INTO sqlite_sequence (name, seq)
    SELECT 'activity_deliveries_v23', seq FROM sqlite_sequence WHERE name = 'activity_deliveries';
DROP TABLE activity_deliveries;
ALTER TABLE activity_deliveries_v23 RENAME TO activity_deliveries;
CREATE INDEX activity_deliveries_by_due ON activity_deliveries(due_at, id);
CREATE INDEX activity_deliveries_by_post ON activity_deliveries(post_id);

-- The fan-out's point (v24): a queued activity fanned out in chunks keeps
-- the last inbox it made a delivery for, so a fan-out stopped midway goes
-- on from there and no inbox gets two.
ALTER TABLE activity_queue ADD COLUMN fanned_out_to TEXT;

-- The deliveries' hosts in their indexes (v25): a claim that passes hosts
-- by reads the host in the due index, not the table; a host that did not
-- answer has its due rows held back by host and due time.
DROP INDEX activity_deliveries_by_due;
CREATE INDEX activity_deliveries_by_due ON activity_deliveries(due_at, id, host);
CREATE INDEX activity_deliveries_by_host ON activity_deliveries(host, due_at);
