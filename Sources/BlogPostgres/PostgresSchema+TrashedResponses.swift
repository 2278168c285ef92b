extension PostgresSchema {
    /// Migration 20: a trashed post keeps its responses. A received
    /// Webmention or fediverse response leaves its post for
    /// `trashed_post_id` while the post is in the trash (as its photos
    /// do), hidden from every read, and comes back on restore; purging
    /// the trash takes it by cascade.
    static let trashedResponses = """
        -- A trashed post keeps its responses: a received Webmention or
        -- fediverse response leaves its post for trashed_post_id while the
        -- post is in the trash (as its photos do), and comes back on
        -- restore; purging takes it by cascade.
        ALTER TABLE webmentions ALTER COLUMN post_id DROP NOT NULL;
        ALTER TABLE webmentions ADD COLUMN trashed_post_id bigint REFERENCES trashed_posts(id) ON DELETE CASCADE;
        ALTER TABLE webmentions ADD CONSTRAINT webmentions_one_post CHECK ((post_id IS NULL) <> (trashed_post_id IS NULL));
        CREATE INDEX webmentions_by_trashed_post ON webmentions (trashed_post_id) WHERE trashed_post_id IS NOT NULL;
        """
}
