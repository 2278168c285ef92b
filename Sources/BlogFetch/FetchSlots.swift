/// The bound on fetches under way: so many overall, so many per host. A
/// fetch past either waits its turn, first come first served among those
/// whose host has room; a cancelled waiter leaves the queue.
actor FetchSlots {
    private let total: Int
    private let perHost: Int
    private var running = 0
    private var byHost: [String: Int] = [:]
    private var waiters: [(id: UInt64, host: String, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID: UInt64 = 0

    init(total: Int, perHost: Int) {
        self.total = max(1, total)
        self.perHost = max(1, perHost)
    }

    /// Waits for a slot for `host`; throws `CancellationError` if the task
    /// is cancelled first.
    func acquire(host: String) async throws {
        if waiters.isEmpty, fits(host) {
            take(host)
            return
        }
        let id = nextID
        nextID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters.append((id, host, continuation))
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    /// Gives the slot back and lets the next waiters in.
    func release(host: String) {
        running -= 1
        byHost[host, default: 1] -= 1
        if byHost[host] == 0 { byHost[host] = nil }
        var index = 0
        while index < waiters.count, running < total {
            if fits(waiters[index].host) {
                let waiter = waiters.remove(at: index)
                take(waiter.host)
                waiter.continuation.resume()
            } else {
                index += 1
            }
        }
    }

    private func cancel(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    private func fits(_ host: String) -> Bool {
        running < total && byHost[host, default: 0] < perHost
    }

    private func take(_ host: String) {
        running += 1
        byHost[host, default: 0] += 1
    }

    /// Fetches under way now (for tests and metrics).
    var underWay: Int { running }
}
