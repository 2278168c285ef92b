extension Schema {
    /// The deliveries' hosts in their indexes (v25): the due index carries
    /// the host, so a claim that passes hosts by reads it there, not in
    /// the table (a silent host's thousands of due rows cost an index
    /// entry each, not a row); and a host's rows by due time, which a
    /// settle in which the host did not answer holds back.
    static let deliveryHosts = """
        DROP INDEX activity_deliveries_by_due;
        CREATE INDEX activity_deliveries_by_due ON activity_deliveries(due_at, id, host);
        CREATE INDEX activity_deliveries_by_host ON activity_deliveries(host, due_at);
        """
}
