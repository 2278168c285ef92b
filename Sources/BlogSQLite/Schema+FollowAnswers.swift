extension Schema {
    /// The answers to follows (v21): an `Accept` or `Reject` of a Follow
    /// is a delivery of its own `kind` (no post: `post_id` 0, a negative
    /// `activity_id`; see `DeliveryKind`), queued with the follower's
    /// change; and a blog's choice to approve its followers by hand.
    static let followAnswers = """
        ALTER TABLE activity_deliveries ADD COLUMN kind TEXT NOT NULL DEFAULT 'post'
            CHECK (kind IN ('post', 'accept', 'reject'));
        ALTER TABLE blog_settings ADD COLUMN approve_followers INTEGER NOT NULL DEFAULT 0
            CHECK (approve_followers IN (0, 1));
        """
}
