extension PostgresSchema {
    /// Migration 22: the fan-out's point. A queued activity fanned out in
    /// chunks keeps the last inbox it made a delivery for, so that a
    /// fan-out stopped midway (a crash, or another instance's) goes on
    /// from there and no inbox gets two.
    static let fanOutPoint = """
        -- The fan-out's point: a queued activity fanned out in chunks
        -- keeps the last inbox it made a delivery for.
        ALTER TABLE activity_queue ADD COLUMN fanned_out_to text;
        """
}
