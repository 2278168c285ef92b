import Synchronization

/// Rendered post fragments by post id, so that a post is rendered once and
/// the pages that show it copy its bytes.
///
/// Bounded by bytes: past `capacity`, the fragments cached longest ago go
/// first. Posts never change, so a fragment never goes stale; one that was
/// taken back (a post whose page write failed) is removed with it.
final class FragmentCache: Sendable {
    private struct State {
        var fragments: [Int64: [UInt8]] = [:]
        /// Ids in the order they were cached; `head` is the oldest.
        var order: [Int64] = []
        var head = 0
        var bytes = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 32 << 20) {
        self.capacity = capacity
    }

    /// Bytes cached (for tests).
    var byteCount: Int { state.withLock { $0.bytes } }

    func fragment(_ id: Int64) -> [UInt8]? {
        state.withLock { $0.fragments[id] }
    }

    /// The fragments of `ids` that are cached, in order, under one lock: a
    /// page asks for a hundred at once, from several threads.
    func fragments(_ ids: [Int64]) -> [[UInt8]?] {
        state.withLock { state in ids.map { state.fragments[$0] } }
    }

    func store(_ fragment: [UInt8], for id: Int64) {
        state.withLock { state in
            guard state.fragments.updateValue(fragment, forKey: id) == nil else { return }
            state.order.append(id)
            state.bytes += fragment.count
            while state.bytes > capacity && state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if let removed = state.fragments.removeValue(forKey: oldest) { state.bytes -= removed.count }
            }
            if state.head > 4096 && state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    func remove(_ id: Int64) {
        state.withLock { state in
            if let removed = state.fragments.removeValue(forKey: id) { state.bytes -= removed.count }
        }
    }
}
