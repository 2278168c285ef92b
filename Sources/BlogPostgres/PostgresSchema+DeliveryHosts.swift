extension PostgresSchema {
    /// Migration 23: the deliveries' hosts in their indexes. The due index
    /// carries the host, so a claim that passes hosts by reads it there;
    /// and a host's rows by due time, which a settle in which the host did
    /// not answer holds back.
    static let deliveryHosts = """
        -- The deliveries' hosts in their indexes: a claim that passes
        -- hosts by reads the host in the due index; a host that did not
        -- answer has its due rows held back by host and due time.
        DROP INDEX activity_deliveries_by_due;
        CREATE INDEX activity_deliveries_by_due ON activity_deliveries (due_at, id, host);
        CREATE INDEX activity_deliveries_by_host ON activity_deliveries (host, due_at);
        """
}
