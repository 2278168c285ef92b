/// The PostgreSQL advisory locks blogd takes, each in a key space of its
/// own (the two-integer form `pg_advisory_xact_lock(space, key)`), so that
/// a post's insert never waits for a page write, nor the reverse.
enum AdvisoryLock {
    /// Serializes the inserts of one user across instances: the page group
    /// a post joins is read and written under it.
    static let insertSpace: Int32 = 1
    /// Serializes the page writes of one user across instances, so the last
    /// page written is rendered from the last state committed.
    static let pageSpace: Int32 = 2
    /// Serializes migrations, so instances that start together migrate once.
    static let migrationSpace: Int32 = 3

    /// The lock key of a user id. Ids past 2^31 share keys with smaller
    /// ones; two users on one key only wait for each other, never clash.
    static func key(userID: Int64) -> Int32 {
        Int32(truncatingIfNeeded: userID)
    }
}
