import Synchronization

/// Work in progress that a shutdown waits for: `enter` when it starts,
/// `leave` when it is done, `drained()` returns once none is left.
final class PendingCount: Sendable {
    private struct State {
        var count = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// How many are in progress.
    var count: Int { state.withLock { $0.count } }

    func enter() {
        state.withLock { $0.count += 1 }
    }

    func leave() {
        let done = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count -= 1
            guard state.count == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        done.forEach { $0.resume() }
    }

    /// Returns once nothing is in progress.
    func drained() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.count == 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
