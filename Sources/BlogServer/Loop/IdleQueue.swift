import BlogLimits
/// The connections of one event loop that wait for a message, in the
/// order they began to wait: the first is the one that has waited longest.
///
/// Entries are never taken out when a connection stops waiting (a message
/// came, it closed); they are dropped lazily when found stale, so marking
/// a connection idle costs one append.
///
///     idle.append(token, since: now)
///     let victim = idle.first(scanning: 256, dropping: isStale) { $0.since < cutoff ? .take : .stop }
struct IdleQueue {
    struct Entry: Equatable {
        var token: UInt64
        var since: Moment
    }

    enum Verdict {
        /// This entry is the one.
        case take
        /// Not this one; look further.
        case skip
        /// None from here on.
        case stop
    }

    private var entries: [Entry] = []
    private var head = 0

    /// Entries held, stale ones included.
    var count: Int { entries.count - head }

    mutating func append(_ token: UInt64, since: Moment) {
        entries.append(Entry(token: token, since: since))
    }

    /// The first of at most `limit` live entries that `verdict` takes,
    /// oldest first; stale entries met at the front are dropped for good.
    mutating func first(scanning limit: Int, dropping isStale: (Entry) -> Bool,
                        where verdict: (Entry) -> Verdict) -> Entry? {
        var index = head
        var scanned = 0
        while index < entries.count && scanned < limit {
            let entry = entries[index]
            if isStale(entry) {
                if index == head { head += 1 }
                index += 1
                continue
            }
            scanned += 1
            switch verdict(entry) {
            case .take: return entry
            case .skip: index += 1
            case .stop: return nil
            }
        }
        compactIfWorthIt()
        return nil
    }

    /// Drops every entry `isStale` says is stale.
    mutating func removeAll(where isStale: (Entry) -> Bool) {
        entries = entries[head...].filter { !isStale($0) }
        head = 0
    }

    private mutating func compactIfWorthIt() {
        if head > 1024 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
