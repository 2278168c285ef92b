import BlogLimits
/// The timers of one event loop: a binary min-heap of (moment, token).
///
/// Each connection has at most one armed moment. Re-arming later does not
/// touch the heap: when the old entry comes due, the loop sees the
/// connection's newer moment and pushes that instead. So a keep-alive
/// connection that re-arms on every message costs no heap work.
struct TimerHeap {
    struct Entry {
        var moment: Moment
        var token: UInt64
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    var earliest: Moment? { entries.first?.moment }

    mutating func push(_ moment: Moment, token: UInt64) {
        entries.append(Entry(moment: moment, token: token))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].moment < entries[parent].moment else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry if it is due at `now`.
    mutating func popDue(at now: Moment) -> Entry? {
        guard let first = entries.first, first.moment <= now else { return nil }
        let last = entries.removeLast()
        guard !entries.isEmpty else { return first }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < entries.count && entries[left].moment < entries[smallest].moment { smallest = left }
            if right < entries.count && entries[right].moment < entries[smallest].moment { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
