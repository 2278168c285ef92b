import Synchronization

/// One lock per key, created on demand and dropped when unused: work on
/// the same key is serialized, work on different keys is not.
final class KeyedLocks: Sendable {
    private final class Entry: @unchecked Sendable {
        let mutex = Mutex(())
        /// Guarded by `KeyedLocks.entries`.
        var holders = 0
    }

    private let entries = Mutex<[String: Entry]>([:])

    func withLock<T, E: Error>(_ key: String, _ body: () throws(E) -> T) throws(E) -> T {
        let entry = entries.withLock { entries in
            let entry = entries[key] ?? Entry()
            entries[key] = entry
            entry.holders += 1
            return entry
        }
        defer {
            entries.withLock { entries in
                entry.holders -= 1
                if entry.holders == 0 { entries[key] = nil }
            }
        }
        return try entry.mutex.withLock { _ throws(E) in try body() }
    }
}
