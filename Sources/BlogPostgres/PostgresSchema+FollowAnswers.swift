extension PostgresSchema {
    /// Migration 19: the answers to follows. An `Accept` or `Reject` of a
    /// Follow is a delivery of its own `kind` (no post: `post_id` 0, a
    /// negative `activity_id`; see `DeliveryKind`), queued with the
    /// follower's change; and a blog's choice to approve its followers by
    /// hand.
    static let followAnswers = """
        -- The answers to follows: an Accept or Reject of a Follow is a
        -- delivery of its own kind, to the follower's inbox, with no post
        -- (post_id 0) and a negative activity_id (a hash of the blog, the
        -- kind and the Follow's id: the same answer twice is one
        -- delivery). A blog may approve its followers by hand.
        ALTER TABLE activity_deliveries ADD COLUMN kind text NOT NULL DEFAULT 'post'
            CHECK (kind IN ('post', 'accept', 'reject'));
        ALTER TABLE blog_settings ADD COLUMN approve_followers boolean NOT NULL DEFAULT false;
        """
}
