/// The names of blogd's metrics, as `/metrics` shows them: one place for
/// the code that counts (BlogCore, BlogServer, BlogSQLite), the buckets
/// the server gives its histograms, and `blogd stats`, which reads them.
///
/// Labels are small fixed sets (a command, a reply, a reason, a kind);
/// never a user name or an address, so a crowd of names or addresses
/// cannot grow `/metrics` or leak who used the server.
///
///     Counter(label: MetricName.pageWrites).increment()
public enum MetricName {
    /// Requests by `command` and `reply` (see `RequestMetrics` in BlogServer).
    public static let requests = "blogd_requests_total"
    /// Seconds from a complete message to its reply being ready, by
    /// `command`, for the requests a lane carried out.
    public static let requestDuration = "blogd_request_duration_seconds"
    /// Blog-port connections accepted, whatever became of them.
    public static let connectionsAccepted = "blogd_connections_accepted_total"
    /// Blog-port connections open now (those being refused included).
    public static let connectionsOpen = "blogd_connections_open"
    /// Connections refused by `reason`: `limit` (the table is full) or
    /// `per_address` (their address holds its share).
    public static let connectionsRefused = "blogd_connections_refused_total"
    /// Idle connections evicted for a newcomer.
    public static let connectionsEvicted = "blogd_connections_evicted_total"
    /// Requests admitted to a `lane` (`hash`, `post`) and not done.
    public static let laneDepth = "blogd_lane_depth"
    /// Seconds a request waited in its `lane` before its work started
    /// (`hash`: for a hashing thread).
    public static let laneWait = "blogd_lane_wait_seconds"
    /// Requests refused by a `budget`: `hashes` or `post_bytes` (the
    /// address's token buckets) or `hash_lane` (the lane's bound).
    public static let budgetRefusals = "blogd_budget_refusals_total"
    /// SQLite group commits (transactions of one or more writes).
    public static let groupCommits = "blogd_group_commits_total"
    /// Writes per group commit.
    public static let groupCommitBatchSize = "blogd_group_commit_batch_size"
    /// Seconds a group commit held the SQLite writer: its transaction,
    /// fsync included.
    public static let groupCommitDuration = "blogd_group_commit_seconds"
    /// Seconds a write took, from being handed in to its batch being on
    /// disk: the wait for the writer (the batch before it) and its own.
    public static let storageWriteDuration = "blogd_storage_write_seconds"
    /// Group commits that failed as a whole, whose writes were tried again
    /// one by one.
    public static let groupCommitFailures = "blogd_group_commit_failures_total"
    /// Files of the public folder written (pages, feeds, the index).
    public static let pageWrites = "blogd_page_writes_total"
    /// Files of the public folder that could not be written.
    public static let pageWriteErrors = "blogd_page_write_errors_total"
    /// Storage calls that failed, by `kind` (`StorageError.metricKind`);
    /// deadlines are counted apart.
    public static let storageErrors = "blogd_storage_errors_total"
    /// Storage calls (and waits for a page writer) that ran out of their
    /// deadline.
    public static let storageDeadlines = "blogd_storage_deadlines_total"
}
