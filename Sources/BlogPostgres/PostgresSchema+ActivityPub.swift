extension PostgresSchema {
    /// Migration 18: ActivityPub. Each blog's key pair, its followers, its
    /// blocks, the delivery queue (activities queued in the post's own
    /// transaction; deliveries made from them by the fan-out, one per
    /// inbox, claimed with `FOR UPDATE SKIP LOCKED`), and the responses
    /// from the fediverse kept with the received Webmentions.
    static let activityPub = """
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
        """
}
