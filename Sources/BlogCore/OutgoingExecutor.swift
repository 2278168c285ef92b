import Dispatch

/// Where the tasks of outgoing requests run (Webmention sends, Micropub's
/// photo fetches): a Dispatch queue of their own, never Swift's cooperative
/// pool. Their callers wait on threads that may block (the sender's
/// thread, a request's thread), and so may others on that pool (one
/// thread a core): a task queued behind them would wait for ever. The jobs
/// themselves never block (they wait on the network by suspending).
final class OutgoingExecutor: TaskExecutor, Sendable {
    static let shared = OutgoingExecutor()

    private let queue = DispatchQueue(label: "blogd-outgoing", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
