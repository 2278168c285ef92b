-- The blogd database in PostgreSQL: users, their posts and photos, login
-- leases, failed logins and access tokens. The program creates exactly this schema
-- through its migrations (Sources/BlogPostgres/PostgresSchema.swift),
-- besides its own bookkeeping table schema_migrations; a test proves the
-- two agree.
-- A user's name keeps the case given at registration and is unique
-- regardless of case (users_name_key, on lower(name)).
-- Post, user and token times are timestamptz, stored to the millisecond; lease and
-- login times are epoch seconds, as in SQLite.
-- A post's page is its page group (1 = oldest), chosen when it is stored;
-- its weight is its escaped title and text in bytes, with its photos'
-- markup (see PageLayout).

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

-- A post's token: inserted with the post, or by a claim that settles an
-- insert whose commit was not heard (post_id NULL: never stored).
CREATE TABLE post_tokens (
    token      uuid        PRIMARY KEY,
    post_id    bigint,
    settled_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX post_tokens_by_time ON post_tokens (settled_at);

-- Migration 4.
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

-- Migration 5.
-- Where a post was written (geopost), as the client sent the
-- decimal degrees: both or neither.
ALTER TABLE posts ADD COLUMN latitude text;
ALTER TABLE posts ADD COLUMN longitude text;
ALTER TABLE posts ADD CONSTRAINT posts_place CHECK ((latitude IS NULL) = (longitude IS NULL));

-- Migration 6.
-- The map page reads a blog's placed posts with every feed write:
-- found without walking the blog's other posts.
CREATE INDEX posts_placed ON posts (user_id, page, id) WHERE latitude IS NOT NULL;

-- Migration 7.
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

-- Migration 8.
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

-- Migration 9.
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

-- Migration 10.
-- Values chosen once for the whole site and kept, such as the
-- authority of the feeds' ids.
CREATE TABLE site_values (
    key   text PRIMARY KEY,
    value text NOT NULL
);

-- Migration 11.
-- The HTML a post's text was derived from, as a Micropub client
-- sent it: never rendered (the pages show content, escaped),
-- NULL for plain text. A post's photos may carry alt text
-- (name:w:h:tw:th:ALT, ALT percent-encoded).
ALTER TABLE posts ADD COLUMN content_html text;
ALTER TABLE trashed_posts ADD COLUMN content_html text;

-- Migration 12.
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

-- Migration 13.
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

-- Migration 14.
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

-- Migration 15.
-- Tags: posts.categories keeps the tags given beside a post's
-- text (space separated, lower case); its text's hashtags are
-- tags too. post_tags holds every tag of every post, written
-- with the post, gone with it by cascade.
ALTER TABLE posts ADD COLUMN categories text NOT NULL DEFAULT '';
ALTER TABLE trashed_posts ADD COLUMN categories text NOT NULL DEFAULT '';
CREATE TABLE post_tags (
    post_id bigint NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
    tag     text   NOT NULL CHECK (char_length(tag) BETWEEN 1 AND 256),
    user_id bigint NOT NULL,
    PRIMARY KEY (post_id, tag)
);
CREATE INDEX post_tags_by_tag ON post_tags (tag, post_id);
CREATE INDEX post_tags_by_blog ON post_tags (user_id, tag, post_id);
INSERT INTO post_tags (post_id, tag, user_id)
SELECT id, tag, user_id FROM (
    SELECT p.id, p.user_id, t.tag, row_number() OVER (PARTITION BY p.id ORDER BY min(t.n)) AS k
    FROM posts p,
        LATERAL (SELECT lower(rtrim(m[1], '-_')) AS tag, n
                 FROM regexp_matches(p.content, '(?:^|[[:space:]])[([{"'']?#([[:alnum:]_-]+)(?![[:alnum:]_-]|://)', 'g')
                      WITH ORDINALITY AS r(m, n)) t
    WHERE p.content LIKE '%#%' AND t.tag ~ '[[:alpha:]]' AND char_length(t.tag) <= 64
    GROUP BY p.id, p.user_id, t.tag
) found WHERE k <= 20;

-- Migration 16.
-- Search: each post's title and text as a tsvector ('simple':
-- words in lower case, no stemming), kept by the database, and
-- its GIN index.
ALTER TABLE posts ADD COLUMN search tsvector
    GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, title || ' ' || content)) STORED;
CREATE INDEX posts_search ON posts USING gin (search);

-- Migration 17.
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

-- ActivityPub: each blog's key pair (PEM), its followers, its
-- blocks, the delivery queue (activities queued in the post's own
-- transaction; deliveries made from them by the fan-out, one per
-- inbox, with the JSON to send), and the responses from the
-- fediverse kept with the received Webmentions. Times in
-- milliseconds since 1970.
CREATE TABLE actor_keys (
    user_id     bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    public_pem  text   NOT NULL,
    private_pem text   NOT NULL,
    created_at  bigint NOT NULL
);
CREATE TABLE followers (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id      bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    actor_id     text   NOT NULL,
    inbox        text   NOT NULL,
    shared_inbox text,
    host         text   NOT NULL,
    follow_id    text   NOT NULL,
    state        text   NOT NULL CHECK (state IN ('pending', 'accepted')),
    created_at   bigint NOT NULL,
    UNIQUE (user_id, actor_id)
);
CREATE INDEX followers_by_user ON followers (user_id, state, id);
CREATE INDEX followers_by_actor ON followers (actor_id);
CREATE TABLE actor_blocks (
    user_id    bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       text   NOT NULL CHECK (kind IN ('actor', 'domain')),
    value      text   NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (user_id, kind, value)
);
CREATE TABLE activity_queue (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id   bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    post_id   bigint NOT NULL,
    kind      text   NOT NULL CHECK (kind IN ('create', 'update', 'delete')),
    queued_at bigint NOT NULL
);
CREATE TABLE activity_deliveries (
    id          bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    activity_id bigint  NOT NULL,
    user_id     bigint  NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    post_id     bigint  NOT NULL,
    inbox       text    NOT NULL,
    host        text    NOT NULL,
    body        text    NOT NULL,
    attempts    integer NOT NULL DEFAULT 0,
    due_at      bigint  NOT NULL DEFAULT 0,
    created_at  bigint  NOT NULL,
    UNIQUE (activity_id, inbox)
);
CREATE INDEX activity_deliveries_by_due ON activity_deliveries (due_at, id);
CREATE INDEX activity_deliveries_by_post ON activity_deliveries (post_id);
CREATE TABLE activity_delivery_totals (
    name  text   PRIMARY KEY,
    total bigint NOT NULL
);
ALTER TABLE webmentions ADD COLUMN origin text NOT NULL DEFAULT 'webmention'
    CHECK (origin IN ('webmention', 'activitypub'));
ALTER TABLE webmentions ADD COLUMN actor_id text;
ALTER TABLE webmentions ADD COLUMN actor_host text;
CREATE INDEX webmentions_by_actor ON webmentions (actor_id) WHERE actor_id IS NOT NULL;
CREATE INDEX webmentions_by_remote_source ON webmentions (source) WHERE origin = 'activitypub';

-- Migration 19.
-- The answers to follows: an Accept or Reject of a Follow is a
-- delivery of its own kind, to the follower's inbox, with no post
-- (post_id 0) and a negative activity_id (a hash of the blog, the
-- kind and the Follow's id: the same answer twice is one
-- delivery). A blog may approve its followers by hand.
ALTER TABLE activity_deliveries ADD COLUMN kind text NOT NULL DEFAULT 'post'
    CHECK (kind IN ('post', 'accept', 'reject'));
ALTER TABLE blog_settings ADD COLUMN approve_followers boolean NOT NULL DEFAULT false;

-- Migration 20.
-- A trashed post keeps its responses: a received Webmention or
-- fediverse response leaves its post for trashed_post_id while the
-- post is in the trash (as its photos do), and comes back on
-- restore; purging takes it by cascade.
ALTER TABLE webmentions ALTER COLUMN post_id DROP NOT NULL;
ALTER TABLE webmentions ADD COLUMN trashed_post_id bigint REFERENCES trashed_posts(id) ON DELETE CASCADE;
ALTER TABLE webmentions ADD CONSTRAINT webmentions_one_post CHECK ((post_id IS NULL) <> (trashed_post_id IS NULL));
CREATE INDEX webmentions_by_trashed_post ON webmentions (trashed_post_id) WHERE trashed_post_id IS NOT NULL;

-- Migration 21.
-- Block notices: a Block sent to an actor a blog blocks (one that
-- followed it: its inbox is known), and the Undo of it on
-- unblocking, are deliveries of their own kind; the block keeps
-- the inbox its Block went to.
ALTER TABLE actor_blocks ADD COLUMN inbox text;
ALTER TABLE activity_deliveries DROP CONSTRAINT activity_deliveries_kind_check;
ALTER TABLE activity_deliveries ADD CONSTRAINT activity_deliveries_kind_check
    CHECK (kind IN ('post', 'accept', 'reject', 'block', 'unblock'));

-- Migration 22.
-- The fan-out's point: a queued activity fanned out in chunks
-- keeps the last inbox it made a delivery for.
ALTER TABLE activity_queue ADD COLUMN fanned_out_to text;

-- Migration 23.
-- The deliveries' hosts in their indexes: a claim that passes
-- hosts by reads the host in the due index; a host that did not
-- answer has its due rows held back by host and due time.
DROP INDEX activity_deliveries_by_due;
CREATE INDEX activity_deliveries_by_due ON activity_deliveries (due_at, id, host);
CREATE INDEX activity_deliveries_by_host ON activity_deliveries (host, due_at);

-- Migration 24.
-- The followers by delivery target: a fan-out step's chunk is a seek.
CREATE INDEX followers_by_target ON followers (user_id, state, (coalesce(shared_inbox, inbox) COLLATE "C"));
