import CLinux
import Dispatch
import Foundation
import Synchronization

/// A fixed set of threads at a lower CPU priority (nice 10) for the
/// expensive work of every door: password hashes, photo decoding.
///
/// Such work may take 200 ms to 0.4 s of a core; at nice 10 it takes what
/// the cheap requests (a post, a reply) leave, so a flood of it slows
/// itself, not everyone. (PostgreSQL's task executor is the same pool at
/// nice 0: its jobs are short and never block.) Jobs wait in `ranks` queues, the lower rank
/// first, and within a rank by owner in turn (`FairQueue`), so one owner's
/// flood delays another's job by no more than the jobs already running.
///
///     let threads = WorkerThreads(name: "blogd.photo", count: 2)
///     threads.submit(owner: address) { process(photo); reply() }
public final class WorkerThreads: Sendable {
    /// Threads, so jobs that run at once.
    public let count: Int
    private let queues: Mutex<[FairQueue<@Sendable () -> Void>]>
    private let waiting = DispatchSemaphore(value: 0)

    /// Starts `count` threads named `name.0`, `name.1`, … at `nice`.
    public init(name: String, count: Int, nice: Int32 = 10, ranks: Int = 1) {
        self.count = max(1, count)
        queues = Mutex((0 ..< max(1, ranks)).map { _ in FairQueue() })
        for index in 0 ..< self.count {
            let thread = Thread { [self] in
                _ = clinux_set_thread_nice(nice)
                while true {
                    waiting.wait()
                    let job = queues.withLock { queues -> (@Sendable () -> Void)? in
                        for index in queues.indices {
                            if let job = queues[index].next() { return job }
                        }
                        return nil
                    }
                    job?()
                }
            }
            thread.name = "\(name).\(index)"
            thread.start()
        }
    }

    /// Jobs queued and not yet started.
    public var queued: Int { queues.withLock { $0.reduce(0) { $0 + $1.count } } }

    /// Queues `job` for `owner` at `rank` (0 is taken first) and returns
    /// at once: the job itself hands its result back.
    public func submit(rank: Int = 0, owner: String = "", _ job: @escaping @Sendable () -> Void) {
        queues.withLock { $0[min(max(0, rank), $0.count - 1)].append(job, for: owner) }
        waiting.signal()
    }

    /// Runs `body` on one of the threads and waits for its result: for a
    /// caller on a thread of its own that has nothing else to do (never
    /// one of these threads: it would wait for its own pool).
    public func run<T: Sendable>(rank: Int = 0, owner: String = "", _ body: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        submit(rank: rank, owner: owner) {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
