extension Schema {
    /// Block notices (v23): a `Block` sent to an actor a blog blocks, and
    /// its `Undo` on unblocking, are deliveries of their own `kind`; the
    /// block keeps the inbox its Block went to. SQLite cannot widen a
    /// CHECK in place, so the deliveries' table is made anew with the
    /// rows, ids and id sequence it had (the steps of "Making Other Kinds
    /// Of Table Schema Changes", sqlite.org/lang_altertable.html; GRDB
    /// checks foreign keys after the migration).
    static let blockNotices = """
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
        """
}
