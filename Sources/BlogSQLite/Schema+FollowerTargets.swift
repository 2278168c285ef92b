extension Schema {
    /// The followers by delivery target (v26): a fan-out step reads its
    /// next chunk of targets past its point inside the writer's turn; by
    /// this index that is a seek, where it was a scan and a sort of all
    /// of the blog's followers (2 ms at 10,000, every step).
    static let followerTargets = """
        CREATE INDEX followers_by_target ON followers(user_id, state, coalesce(shared_inbox, inbox));
        """
}
