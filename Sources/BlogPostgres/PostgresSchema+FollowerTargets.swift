extension PostgresSchema {
    /// Migration 24: the followers by delivery target, in the "C"
    /// collation the fan-out orders them by, so that a fan-out step's read
    /// of its next chunk past its point is a seek, not a scan and a sort
    /// of all of the blog's followers.
    static let followerTargets = """
        -- The followers by delivery target: a fan-out step's chunk is a seek.
        CREATE INDEX followers_by_target ON followers (user_id, state, (coalesce(shared_inbox, inbox) COLLATE "C"));
        """
}
