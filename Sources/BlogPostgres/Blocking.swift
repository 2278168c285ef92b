import Foundation
import Dispatch
import Synchronization
import BlogLimits
import BlogModel

/// Runs PostgresNIO's async calls for `BlogStorage`'s synchronous callers.
///
/// The callers are Dispatch threads (the server's lanes), which may block.
/// The async work runs as tasks on threads of the store's own
/// (`ThreadExecutor`), never on Swift's cooperative pool nor Dispatch's:
/// the cooperative pool has one thread per core, and a test or command that
/// blocks those threads while waiting here must not starve the very tasks
/// it waits for (nor the connection pools' own `run()`); Dispatch adds
/// threads only slowly when its workers block. (On a NIO event loop, the
/// pools never finished shutting down.)
struct Blocking: Sendable {
    let executor = ThreadExecutor.shared

    /// Runs `work` to its end and returns its result, blocking this thread;
    /// for at most `seconds`, when given: then the work is cancelled and
    /// `StorageError.deadlineExceeded` thrown at once, whether or not the
    /// work has noticed (a database that does not answer must not hold the
    /// caller, nor anyone behind it).
    func run<T: Sendable>(within seconds: Double? = nil, _ work: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task(executorPreference: executor) {
            let result: Result<T, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        if let seconds {
            if done.wait(timeout: .now() + seconds) == .timedOut {
                task.cancel()
                throw StorageError.deadlineExceeded(seconds: seconds)
            }
        } else {
            done.wait()
        }
        return try outcome.withLock { $0! }.get()
    }
}

/// A Swift task executor on a few threads of its own, the same pool type
/// as the hash and photo threads (`WorkerThreads`) at normal priority. The
/// jobs it runs never block (they are PostgresNIO's async code, waiting on
/// the network by suspending), so two threads serve every store of the
/// process.
final class ThreadExecutor: TaskExecutor, Sendable {
    static let shared = ThreadExecutor(threads: 2)

    private let threads: WorkerThreads

    init(threads count: Int) {
        threads = WorkerThreads(name: "blogd-postgres", count: count, nice: 0)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        threads.submit { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}
