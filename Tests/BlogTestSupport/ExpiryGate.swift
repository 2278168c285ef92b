import Synchronization

/// The fetcher's time limit, ended by the test: `expire()` ends every wait
/// begun so far and every later one at once, so a test says when time is
/// up instead of racing a real deadline. A cancelled wait (the fetch ended
/// first) ends too, as `Task.sleep` would.
public final class ExpiryGate: Sendable {
    private struct State {
        var expired = false
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var next = 0
    }
    private let state = Mutex(State())

    public init() {}

    /// Pass as `OutgoingFetcher(expiry:)`.
    public var wait: @Sendable (Duration) async throws -> Void {
        { [self] _ in
            let id = state.withLock { state in
                defer { state.next += 1 }
                return state.next
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let now = state.withLock { state -> Bool in
                        if state.expired || Task.isCancelled { return true }
                        state.waiting[id] = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                state.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
            }
            try Task.checkCancellation()
        }
    }

    public func expire() {
        let waiting = state.withLock { state in
            state.expired = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        waiting.forEach { $0.resume() }
    }
}
