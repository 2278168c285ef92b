extension PostgresSchema {
    /// Migration 21: block notices. A `Block` sent to an actor a blog
    /// blocks, and its `Undo` on unblocking, are deliveries of their own
    /// `kind`; the block keeps the inbox its Block went to.
    static let blockNotices = """
        -- Block notices: a Block sent to an actor a blog blocks (one that
        -- followed it: its inbox is known), and the Undo of it on
        -- unblocking, are deliveries of their own kind; the block keeps
        -- the inbox its Block went to.
        ALTER TABLE actor_blocks ADD COLUMN inbox text;
        ALTER TABLE activity_deliveries DROP CONSTRAINT activity_deliveries_kind_check;
        ALTER TABLE activity_deliveries ADD CONSTRAINT activity_deliveries_kind_check
            CHECK (kind IN ('post', 'accept', 'reject', 'block', 'unblock'));
        """
}
