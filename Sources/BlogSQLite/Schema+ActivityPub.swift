extension Schema {
    /// ActivityPub (v20): each blog's key pair, its followers, its blocks,
    /// the delivery queue (activities queued in the post's own commit,
    /// deliveries made from them by the fan-out, one per inbox), and the
    /// responses from the fediverse kept with the received Webmentions
    /// (`origin`, and the actor, so a block or an actor's `Delete` finds
    /// them). Times are milliseconds since 1970, as the outbox's.
    static let activityPub = """
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
        """
}
