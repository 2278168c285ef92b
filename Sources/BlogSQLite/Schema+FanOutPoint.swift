extension Schema {
    /// The fan-out's point (v24): a queued activity fanned out in chunks
    /// keeps the last inbox it made a delivery for, so that a fan-out
    /// stopped midway goes on from there and no inbox gets two.
    static let fanOutPoint = """
        ALTER TABLE activity_queue ADD COLUMN fanned_out_to TEXT;
        """
}
