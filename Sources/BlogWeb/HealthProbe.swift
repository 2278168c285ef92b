import Dispatch
import Synchronization

/// Runs a blocking health check (a database ping) for `/healthz` on a
/// thread of its own, never the file thread, and answers within `limit`:
/// a check still running then counts as unhealthy. At most one check runs
/// at a time; the health checks that come meanwhile share its answer, so a
/// database that hangs holds one thread, not one per request.
///
///     let probe = HealthProbe(limit: 1) { (try? store.ping()) != nil }
///     let healthy = await probe.check()   // false after 1 s of no answer
final class HealthProbe: Sendable {
    private final class Waiter: Sendable {
        let continuation: CheckedContinuation<Bool, Never>
        private let resumed = Atomic<Bool>(false)

        init(_ continuation: CheckedContinuation<Bool, Never>) {
            self.continuation = continuation
        }

        func resume(_ healthy: Bool) {
            guard !resumed.exchange(true, ordering: .relaxed) else { return }
            continuation.resume(returning: healthy)
        }
    }

    private struct State {
        var running = false
        var waiters: [Waiter] = []
    }

    let limit: Double
    private let body: @Sendable () -> Bool
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "blogd.http.health")

    init(limit: Double = 1, _ body: @escaping @Sendable () -> Bool) {
        self.limit = limit
        self.body = body
    }

    /// Whether the check says healthy within `limit` seconds.
    func check() async -> Bool {
        await withCheckedContinuation { continuation in
            let waiter = Waiter(continuation)
            let start = state.withLock { state in
                state.waiters.append(waiter)
                defer { state.running = true }
                return !state.running
            }
            if start {
                queue.async { [self] in
                    let healthy = body()
                    let waiters = state.withLock { state in
                        state.running = false
                        defer { state.waiters = [] }
                        return state.waiters
                    }
                    waiters.forEach { $0.resume(healthy) }
                }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + limit) { [self] in
                waiter.resume(false)
                // Forget it, or a check that never ends would keep them all.
                state.withLock { $0.waiters.removeAll { $0 === waiter } }
            }
        }
    }
}
