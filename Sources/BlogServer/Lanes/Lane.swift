import Dispatch
import Synchronization

/// Runs request handlers on Dispatch, at most `limit` at a time, in the
/// order they came, without holding a thread while they wait their turn.
///
/// A handler blocks its thread (scrypt, the group commit's fsync, a user's
/// lock). libdispatch has a fixed number of threads on Linux (255); if
/// every one of them sat in a handler, the group commit could never get a
/// thread to finish the commit they all wait for, and the server would
/// hang. Capping each lane leaves the rest of the pool for the committer
/// and the index writer.
///
///     let lane = Lane(name: "posts", limit: 64)
///     lane.submit { service.handle(...) }
final class Lane: Sendable {
    private struct State {
        var running = 0
        var waiting: [@Sendable () -> Void] = []
        /// Start of the waiting jobs in `waiting`: popping stays O(1).
        var head = 0
    }

    let limit: Int
    private let queue: DispatchQueue
    private let state = Mutex(State())

    init(name: String, limit: Int) {
        precondition(limit >= 1)
        self.limit = limit
        queue = DispatchQueue(label: "blogd.lane.\(name)", attributes: .concurrent)
    }

    /// Jobs running or waiting right now.
    var load: Int { state.withLock { $0.running + $0.waiting.count - $0.head } }

    /// Runs `job` now if fewer than `limit` run, else when one ends.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let startNow = state.withLock { state in
            guard state.running < limit else {
                state.waiting.append(job)
                return false
            }
            state.running += 1
            return true
        }
        if startNow { launch(job) }
    }

    private func launch(_ job: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            job()
            if let next = nextJob() { launch(next) }
        }
    }

    /// The next waiting job, keeping its slot; nil frees the slot.
    private func nextJob() -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard state.head < state.waiting.count else {
                state.running -= 1
                state.waiting.removeAll(keepingCapacity: true)
                state.head = 0
                return nil
            }
            let job = state.waiting[state.head]
            state.head += 1
            if state.head > 1024 && state.head * 2 > state.waiting.count {
                state.waiting.removeFirst(state.head)
                state.head = 0
            }
            return job
        }
    }
}
