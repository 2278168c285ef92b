import Dispatch
import Foundation
import Synchronization

/// Where the tasks of outgoing requests run (Webmention sends, ActivityPub
/// deliveries, Micropub's photo fetches): Dispatch queues of their own,
/// never Swift's global executor. Their callers wait on threads that may
/// block (the sender's thread, a request's thread), and so may others on
/// that executor: a task queued behind them would wait for ever. The jobs
/// themselves never block (they wait on the network by suspending).
///
/// The queues are serial, one per core, and take jobs in turn: a serial
/// queue runs on Dispatch's overcommit pool, which starts a thread when
/// one is needed. A concurrent queue would share the default pool with
/// Swift's global executor, which on Linux runs one thread a core and
/// does not replace a blocked one; two callers blocked on it (two tests
/// waiting for a batch, on a 2-core machine) then left the sends with no
/// thread at all.
final class OutgoingExecutor: TaskExecutor, Sendable {
    static let shared = OutgoingExecutor()

    private let queues: [DispatchQueue]
    private let next = Atomic<Int>(0)

    init(lanes: Int = ProcessInfo.processInfo.activeProcessorCount) {
        queues = (0..<max(2, lanes)).map { DispatchQueue(label: "blogd-outgoing-\($0)") }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        let queue = queues[Int(UInt(bitPattern: index) % UInt(queues.count))]
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
