import Dispatch
import Synchronization

/// Runs request handlers on Dispatch, at most `limit` at a time, in the
/// order they came, without holding a thread while they wait their turn.
///
/// A handler blocks its thread (scrypt, the group commit's fsync, a page
/// write). Each of the `limit` places is a serial queue of its own, and
/// libdispatch gives every serial queue a thread when it has work, however
/// many others are blocked. A concurrent queue would share the pool of
/// one thread per core: with both threads blocked in one lane, the other
/// lane's cheap work would wait until libdispatch noticed (a few hundred
/// milliseconds). Capping the places leaves threads for the committer and
/// the index writer.
///
///     let lane = Lane(name: "posts", limit: 64)
///     lane.submit { service.handle(...) }
final class Lane: Sendable {
    private struct State {
        /// Places with nothing to do.
        var idle: [Int]
        var waiting: [@Sendable () -> Void] = []
        /// Start of the waiting jobs in `waiting`: popping stays O(1).
        var head = 0
    }

    let limit: Int
    private let places: [DispatchQueue]
    private let state: Mutex<State>

    init(name: String, limit: Int) {
        precondition(limit >= 1)
        self.limit = limit
        places = (0..<limit).map { DispatchQueue(label: "blogd.lane.\(name).\($0)") }
        state = Mutex(State(idle: Array((0..<limit).reversed())))
    }

    /// Jobs running or waiting right now.
    var load: Int { state.withLock { limit - $0.idle.count + $0.waiting.count - $0.head } }

    /// Runs `job` now if a place is idle, else when one is.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let place: Int? = state.withLock { state in
            guard let place = state.idle.popLast() else {
                state.waiting.append(job)
                return nil
            }
            return place
        }
        if let place { run(job, at: place) }
    }

    private func run(_ job: @escaping @Sendable () -> Void, at place: Int) {
        places[place].async { [self] in
            job()
            if let next = nextJob(freeing: place) { run(next, at: place) }
        }
    }

    /// The next waiting job for `place`, or nil and the place is idle.
    private func nextJob(freeing place: Int) -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard state.head < state.waiting.count else {
                state.idle.append(place)
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
