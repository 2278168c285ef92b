import Synchronization

extension Atomic<Int> {
    /// Adds one unless the count is at `limit` already: a place taken in
    /// a table that many threads fill at once, where a load then an add
    /// could let two of them take the last place.
    ///
    ///     guard open.increment(below: maxConnections) else { return .rejected }
    public func increment(below limit: Int) -> Bool {
        var current = load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }
}
