extension Schema {
    /// A trashed post keeps its responses (v22): a received Webmention or
    /// fediverse response leaves its post for `trashed_post_id` when the
    /// post goes to the trash (as its photos do), hidden from every read,
    /// and comes back on restore; purging the trash takes it by cascade.
    /// `post_id` may now be NULL, which SQLite cannot change in place: the
    /// table is made again (foreign keys are off in a migration, and no
    /// table refers to this one), its rows copied with their ids, and its
    /// indexes made again.
    static let trashedResponses = """
        ALTER TABLE webmentions RENAME TO webmentions_before_trash;
        \(trashedResponsesTable)
        INSERT INTO webmentions (id, user_id, post_id, source, target, status, approved, received_at, attempts,
                                 next_attempt_at, verified_at, kind, author_name, author_url, author_photo, title,
                                 content, origin, actor_id, actor_host)
        SELECT id, user_id, post_id, source, target, status, approved, received_at, attempts, next_attempt_at,
               verified_at, kind, author_name, author_url, author_photo, title, content, origin, actor_id, actor_host
        FROM webmentions_before_trash;
        DROP TABLE webmentions_before_trash;
        \(trashedResponsesIndexes)
        """

    /// The table as v21 makes it (schema.sql says the same).
    static let trashedResponsesTable = """
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
        """

    static let trashedResponsesIndexes = """
        CREATE INDEX webmentions_due ON webmentions(next_attempt_at) WHERE status = 'queued';
        CREATE INDEX webmentions_by_user ON webmentions(user_id, id);
        CREATE INDEX webmentions_shown ON webmentions(post_id, id) WHERE approved = 1 AND verified_at IS NOT NULL;
        CREATE INDEX webmentions_by_actor ON webmentions(actor_id) WHERE actor_id IS NOT NULL;
        CREATE INDEX webmentions_by_remote_source ON webmentions(source) WHERE origin = 'activitypub';
        CREATE INDEX webmentions_by_trashed_post ON webmentions(trashed_post_id) WHERE trashed_post_id IS NOT NULL;
        """
}
